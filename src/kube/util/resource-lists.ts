// Canonical quantities inside built-in objects. kube-apiserver decodes every Quantity (which
// canonicalizes it) and rounds each ResourceList entry up to milli units (core/v1
// SetDefaults_ResourceList), so `cpu: 0.5` is stored and returned as "500m". These helpers do
// the same in place on plain JSON objects.
import { isObject } from '../../apimachinery/json/index.ts';
import { StatusError } from '../../apimachinery/errors/index.ts';
import { fieldInvalid, type FieldError } from '../../apimachinery/validation/field-errors.ts';
import { quantityFromJSON, QuantityError } from '../../apimachinery/quantity/quantity.ts';

type Obj = Record<string, unknown>;

const MILLI = -3;

function badValue(value: unknown): string | number | boolean | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function canonicalizeOne(holder: Obj, key: string, path: string, roundToMilli: boolean, errs: FieldError[]): void {
  const raw = holder[key];
  try {
    let q = quantityFromJSON(raw);
    if (roundToMilli) q = q.roundUp(MILLI).quantity;
    holder[key] = q.toString();
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    errs.push(fieldInvalid(path, badValue(raw), e.message));
  }
}

/**
 * Canonicalizes every entry of a ResourceList (`requests`, `limits`, `capacity`, ...) in
 * place, rounding up to milli units. Returns one error per unparseable entry, at `path[key]`.
 */
export function canonicalizeResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(list)) return errs;
  for (const key of Object.keys(list)) canonicalizeOne(list, key, `${path}[${key}]`, true, errs);
  return errs;
}

/** A single Quantity field (e.g. emptyDir.sizeLimit): canonical text, no milli rounding. */
function canonicalizeQuantityAt(holder: unknown, key: string, path: string, errs: FieldError[]): void {
  if (isObject(holder) && key in holder && holder[key] !== undefined)
    canonicalizeOne(holder, key, `${path}.${key}`, false, errs);
}

function each(node: unknown, key: string, path: string, fn: (item: unknown, at: string) => void): void {
  if (!isObject(node) || !Array.isArray(node[key])) return;
  (node[key] as unknown[]).forEach((item, i) => fn(item, `${path}.${key}[${i}]`));
}

function at(node: unknown, key: string): unknown {
  return isObject(node) ? node[key] : undefined;
}

function requirements(node: unknown, path: string, errs: FieldError[]): void {
  errs.push(...canonicalizeResourceList(at(node, 'limits'), `${path}.limits`));
  errs.push(...canonicalizeResourceList(at(node, 'requests'), `${path}.requests`));
}

function pvcSpec(spec: unknown, path: string, errs: FieldError[]): void {
  requirements(at(spec, 'resources'), `${path}.resources`, errs);
}

function podSpec(spec: unknown, path: string, errs: FieldError[]): void {
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    each(spec, list, path, (c, p) => requirements(at(c, 'resources'), `${p}.resources`, errs));
  }
  errs.push(...canonicalizeResourceList(at(spec, 'overhead'), `${path}.overhead`));
  requirements(at(spec, 'resources'), `${path}.resources`, errs);
  each(spec, 'volumes', path, (v, p) => {
    canonicalizeQuantityAt(at(v, 'emptyDir'), 'sizeLimit', `${p}.emptyDir`, errs);
    const template = at(at(v, 'ephemeral'), 'volumeClaimTemplate');
    pvcSpec(at(template, 'spec'), `${p}.ephemeral.volumeClaimTemplate.spec`, errs);
  });
}

function podStatus(status: unknown, path: string, errs: FieldError[]): void {
  for (const list of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    each(status, list, path, (c, p) => {
      errs.push(...canonicalizeResourceList(at(c, 'allocatedResources'), `${p}.allocatedResources`));
      requirements(at(c, 'resources'), `${p}.resources`, errs);
    });
  }
}

function podTemplate(template: unknown, path: string, errs: FieldError[]): void {
  podSpec(at(template, 'spec'), `${path}.spec`, errs);
}

const WALKERS: Record<string, (o: Obj, errs: FieldError[]) => void> = {
  '/pods': (o, errs) => {
    podSpec(o.spec, 'spec', errs);
    podStatus(o.status, 'status', errs);
  },
  '/podtemplates': (o, errs) => podTemplate(o.template, 'template', errs),
  '/replicationcontrollers': (o, errs) => podTemplate(at(o.spec, 'template'), 'spec.template', errs),
  '/nodes': (o, errs) => {
    errs.push(...canonicalizeResourceList(at(o.status, 'capacity'), 'status.capacity'));
    errs.push(...canonicalizeResourceList(at(o.status, 'allocatable'), 'status.allocatable'));
  },
  '/persistentvolumeclaims': (o, errs) => {
    pvcSpec(o.spec, 'spec', errs);
    errs.push(...canonicalizeResourceList(at(o.status, 'capacity'), 'status.capacity'));
    errs.push(...canonicalizeResourceList(at(o.status, 'allocatedResources'), 'status.allocatedResources'));
  },
  '/persistentvolumes': (o, errs) => {
    errs.push(...canonicalizeResourceList(at(o.spec, 'capacity'), 'spec.capacity'));
  },
  '/resourcequotas': (o, errs) => {
    errs.push(...canonicalizeResourceList(at(o.spec, 'hard'), 'spec.hard'));
    errs.push(...canonicalizeResourceList(at(o.status, 'hard'), 'status.hard'));
    errs.push(...canonicalizeResourceList(at(o.status, 'used'), 'status.used'));
  },
  '/limitranges': (o, errs) => {
    each(o.spec, 'limits', 'spec', (item, p) => {
      for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
        errs.push(...canonicalizeResourceList(at(item, key), `${p}.${key}`));
      }
    });
  },
  'apps/deployments': (o, errs) => podTemplate(at(o.spec, 'template'), 'spec.template', errs),
  'apps/replicasets': (o, errs) => podTemplate(at(o.spec, 'template'), 'spec.template', errs),
  'apps/daemonsets': (o, errs) => podTemplate(at(o.spec, 'template'), 'spec.template', errs),
  'apps/statefulsets': (o, errs) => {
    podTemplate(at(o.spec, 'template'), 'spec.template', errs);
    each(o.spec, 'volumeClaimTemplates', 'spec', (t, p) => pvcSpec(at(t, 'spec'), `${p}.spec`, errs));
  },
  'batch/jobs': (o, errs) => podTemplate(at(o.spec, 'template'), 'spec.template', errs),
  'batch/cronjobs': (o, errs) =>
    podTemplate(at(at(at(o.spec, 'jobTemplate'), 'spec'), 'template'), 'spec.jobTemplate.spec.template', errs),
};

/** True when objects of this resource carry quantities we canonicalize. */
export function hasQuantities(group: string, resource: string): boolean {
  return `${group}/${resource}` in WALKERS;
}

/**
 * Canonicalizes every quantity a built-in object of this resource holds, in place. Returns
 * errors for unparseable ones (kube-apiserver rejects those whole; see quantityDecodeError).
 */
export function canonicalizeQuantities(group: string, resource: string, object: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const walk = WALKERS[`${group}/${resource}`];
  if (walk && isObject(object)) walk(object, errs);
  return errs;
}

const QUANTITY_MESSAGES = [QuantityError.formatWrong(), QuantityError.numeric(), QuantityError.suffix()].map(
  (e) => e.message,
);

/**
 * The response kube-apiserver gives for a body with a bad quantity: it fails while decoding,
 * so it is a 400 BadRequest naming the kind, not a 422 with causes. `version` is the bare
 * version ("v1"). Pass the first problem only: decoding stops there.
 */
export function quantityDecodeError(
  kind: string,
  version: string,
  problem: QuantityError | FieldError | undefined,
): StatusError {
  const detail =
    problem instanceof QuantityError
      ? problem.message
      : (QUANTITY_MESSAGES.find((m) => problem?.message.endsWith(m)) ?? problem?.message ?? '');
  return new StatusError(
    400,
    'BadRequest',
    `${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`,
  );
}
