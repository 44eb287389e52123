// Validation of core/v1 ConfigMap, Secret, Namespace, Node and Event (the legacy core/v1 rules,
// which also apply to events written through events.k8s.io since both share one store).
import { Buffer } from 'node:buffer';
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { goQuote } from '../../../apimachinery/strings/goquote.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  GoValue,
} from '../../../apimachinery/validation/field-errors.ts';
import { isNil, obj, objects, sortedKeys, str, strings } from '../json.ts';
import { isConfigMapKey, parseIpSloppy } from '../names.ts';
import { isWholeQuantity } from '../quantity.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';
import { isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../apimachinery/validation/names.ts';
import { tryQuantityFromJSON } from '../../../apimachinery/quantity/quantity.ts';

const MAX_SECRET_SIZE = 1024 * 1024;

function immutableData(o: JsonObject, old: JsonObject | undefined, fields: string[]): FieldError[] {
  if (old?.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (o.immutable !== true) errs.push(fieldForbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields)
    if (!deepEqual(o[f] ?? null, old[f] ?? null))
      errs.push(fieldForbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

export function validateConfigMap(o: JsonObject, old?: JsonObject): FieldError[] {
  const errs = immutableData(o, old, ['data', 'binaryData']);
  const data = obj(o, 'data') ?? {};
  const binary = obj(o, 'binaryData') ?? {};
  let total = 0;
  for (const key of sortedKeys(data)) {
    for (const m of isConfigMapKey(key)) errs.push(fieldInvalid(`data[${key}]`, key, m));
    if (key in binary) errs.push(fieldInvalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(typeof data[key] === 'string' ? data[key] : '', 'utf8');
  }
  for (const key of sortedKeys(binary)) {
    for (const m of isConfigMapKey(key)) errs.push(fieldInvalid(`binaryData[${key}]`, key, m));
    total += Buffer.from(typeof binary[key] === 'string' ? binary[key] : '', 'base64').length;
  }
  // kube passes field.NewPath("") here (the limit is on the whole object), which prints as "[]".
  if (total > MAX_SECRET_SIZE) errs.push(fieldTooLong('[]', MAX_SECRET_SIZE));
  return errs;
}

function decoded(data: JsonObject, key: string): Buffer | undefined {
  const v = data[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
}

function jsonError(bytes: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? undefined
      : 'json: cannot unmarshal into Go value of type map[string]interface {}';
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

export function validateSecret(o: JsonObject, old?: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (old) {
    const type = str(o, 'type') ?? '';
    if (type !== (str(old, 'type') ?? '')) errs.push(fieldInvalid('type', type, 'field is immutable'));
    errs.push(...immutableData(o, old, ['data']));
  }
  const data = obj(o, 'data') ?? {};
  let total = 0;
  for (const key of sortedKeys(data)) {
    for (const m of isConfigMapKey(key)) errs.push(fieldInvalid(`data[${key}]`, key, m));
    total += decoded(data, key)?.length ?? 0;
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldTooLong('data', MAX_SECRET_SIZE));
  const need = (key: string): void => {
    if (!(key in data)) errs.push(fieldRequired(`data[${key}]`));
  };
  switch (str(o, 'type') ?? '') {
    case 'kubernetes.io/service-account-token':
      if (!str(obj(obj(o, 'metadata'), 'annotations'), 'kubernetes.io/service-account.name')) {
        errs.push(fieldRequired('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = o.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      const bytes = decoded(data, key);
      if (!bytes) need(key);
      else {
        const err = jsonError(bytes);
        if (err) errs.push(fieldInvalid(`data[${key}]`, '<secret contents redacted>', err));
      }
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!('username' in data) && !('password' in data)) {
        need('username');
        need('password');
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if ((decoded(data, 'ssh-privatekey')?.length ?? 0) === 0) errs.push(fieldRequired('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      need('tls.crt');
      need('tls.key');
      break;
  }
  return errs;
}

export function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldInvalid(path, name, m));
  if (!name.includes('/') && name !== 'kubernetes') {
    errs.push(fieldInvalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

export function validateNamespace(o: JsonObject): FieldError[] {
  return strings(obj(o, 'spec'), 'finalizers').flatMap((f) => validateFinalizerName(f, 'spec.finalizers'));
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function goTaint(t: JsonObject): GoValue {
  const added = isNil(t, 'timeAdded') ? '(*v1.Time)(nil)' : `&v1.Time{...}`;
  return new GoValue(
    `core.Taint{Key:${goQuote(str(t, 'key') ?? '')}, Value:${goQuote(str(t, 'value') ?? '')}, Effect:${goQuote(str(t, 'effect') ?? '')}, TimeAdded:${added}}`,
  );
}

/** Taint errors are reported under `metadata.taints`, as kube-apiserver does. */
function validateTaints(taints: JsonObject[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((t, i) => {
    const p = `metadata.taints[${i}]`;
    const key = str(t, 'key') ?? '';
    errs.push(...isQualifiedName(key).map((m) => fieldInvalid(`${p}.key`, key, m)));
    const value = str(t, 'value') ?? '';
    const msgs = isValidLabelValue(value);
    if (msgs.length > 0) errs.push(fieldInvalid(`${p}.value`, value, msgs.join(';')));
    const effect = str(t, 'effect') ?? '';
    if (effect === '') errs.push(fieldRequired(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldNotSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      const dup = fieldDuplicate(p, goTaint(t));
      errs.push({ ...dup, message: `${dup.message}: taints must be unique by key and effect pair` });
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  return errs;
}

const INTEGER_RESOURCES = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

function validateNodeResources(o: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['capacity', 'allocatable']) {
    const values = obj(obj(o, 'status'), list) ?? {};
    for (const name of sortedKeys(values)) {
      const path = `status.${list}.${name}`;
      const q = tryQuantityFromJSON(values[name]);
      if (!q) continue;
      const text = String(values[name]);
      if (q.sign() < 0) errs.push(fieldInvalid(path, text, 'must be greater than or equal to 0'));
      const extended = name.includes('/') && !name.includes('kubernetes.io/');
      const whole = isWholeQuantity(q);
      if ((INTEGER_RESOURCES.has(name) || extended) && !whole)
        errs.push(fieldInvalid(path, new GoValue(text), 'must be an integer'));
    }
  }
  return errs;
}

function validateCidr(path: string, value: string): FieldError[] {
  const m = /^(.*)\/(\d{1,3})$/.exec(value);
  const fam = m ? parseIpSloppy(m[1]) : 0;
  const ok = m !== null && fam !== 0 && Number(m[2]) <= (fam === 4 ? 32 : 128);
  return ok ? [] : [fieldInvalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

export function validateNode(o: JsonObject, old?: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs = validateTaints(objects(spec, 'taints'));
  errs.push(...validateNodeResources(o));
  const cidrs = strings(spec, 'podCIDRs');
  cidrs.forEach((c, i) => errs.push(...validateCidr(`spec.podCIDRs[${i}]`, c)));
  if (cidrs.length > 1) {
    const fams = cidrs.map((c) => parseIpSloppy(c.split('/')[0]));
    if (cidrs.length > 2 || fams[0] === fams[1]) {
      errs.push(
        fieldInvalid(
          'spec.podCIDRs',
          new GoValue(`[]string{${cidrs.map(goQuote).join(', ')}}`),
          'may specify no more than one CIDR for each IP family',
        ),
      );
    }
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(fieldDuplicate(`spec.podCIDRs[${i}]`, c));
      seen.add(c);
    });
  }
  if (old) {
    const oldSpec = obj(old, 'spec') ?? {};
    const oldCidrs = strings(oldSpec, 'podCIDRs');
    if (oldCidrs.length > 0 && (oldCidrs.length !== cidrs.length || oldCidrs.some((c, i) => c !== cidrs[i]))) {
      errs.push(fieldForbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
    }
    const oldProvider = str(oldSpec, 'providerID') ?? '';
    if (oldProvider && oldProvider !== (str(spec, 'providerID') ?? '')) {
      errs.push(fieldForbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
    }
    if ((str(spec, 'externalID') ?? '') !== (str(oldSpec, 'externalID') ?? ''))
      errs.push(fieldForbidden('spec.externalID', 'may not be updated'));
  }
  return errs;
}

/** legacyValidateEvent: what every Event must satisfy, whichever API wrote it. */
export function validateEvent(o: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(obj(o, 'metadata'), 'namespace') ?? '';
  const involvedNs = str(obj(o, 'involvedObject'), 'namespace') ?? '';
  const mismatch = (): FieldError =>
    fieldInvalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (isNil(o, 'eventTime')) {
    if (involvedNs === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(mismatch());
    } else if (namespace !== involvedNs) errs.push(mismatch());
  } else {
    if (involvedNs === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    // Internal field names: kube reports reportingComponent as reportingController.
    const controller = str(o, 'reportingComponent') ?? '';
    if (controller === '') errs.push(fieldRequired('reportingController'));
    errs.push(...isQualifiedName(controller).map((m) => fieldInvalid('reportingController', controller, m)));
    const limited: [string, string, number][] = [
      ['reportingInstance', str(o, 'reportingInstance') ?? '', 128],
      ['action', str(o, 'action') ?? '', 128],
      ['reason', str(o, 'reason') ?? '', 128],
    ];
    for (const [field, value, max] of limited) {
      if (value === '') errs.push(fieldRequired(field));
      if (value.length > max) errs.push(fieldInvalid(field, '', `can have at most ${max} characters`));
    }
    if ((str(o, 'message') ?? '').length > 1024)
      errs.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  }
  errs.push(...isDNS1123Subdomain(namespace).map((m) => fieldInvalid('namespace', namespace, m)));
  return errs;
}
