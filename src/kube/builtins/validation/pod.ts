// PodSpec validation (Pods and every pod template) and the Pod update rules, following
// ValidatePodSpec / ValidatePodUpdate in the same order so that multi-error messages list
// causes in kube's order. Covered: volumes, containers (names, images, ports, env, mounts, pull
// policy, resources, probes), init containers, restart and DNS policy, tolerations, scheduling
// gates and the scalar fields. Not covered: security contexts, affinity, topology spread,
// sysctls, Windows options, resource claims.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { goStringMapValue } from '../go.ts';
import { isEmptyString, isNil, num, obj, objects, str, stringMap } from '../json.ts';
import { inclusiveRangeError } from '../names.ts';
import { validateContainers, validateInitContainers } from './containers.ts';
import { validateVolumes } from './volumes.ts';
import { cloneJson, isObject, semanticEqual } from '../../../apimachinery/json/index.ts';
import {
  isDNS1123Subdomain,
  isValidLabelValue,
  validateDNS1123Label,
  validateQualifiedName,
} from '../../../apimachinery/validation/names.ts';
import { validateLabels } from '../../../apimachinery/validation/labels.ts';

const MAX_INT32 = 2147483647;

export interface PodSpecContext {
  /** The spec belongs to a Pod, not a template: enables the Pod-only checks. */
  isPod: boolean;
}

export function validateTolerations(tolerations: JsonObject[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  tolerations.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = str(t, 'key') ?? '';
    const op = str(t, 'operator') ?? '';
    const value = str(t, 'value') ?? '';
    const effect = str(t, 'effect') ?? '';
    if (key) errs.push(...validateQualifiedName(key, `${p}.key`));
    if (!key && op !== 'Exists') {
      errs.push(
        fieldInvalid(
          `${p}.operator`,
          op,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (!isNil(t, 'tolerationSeconds') && effect !== 'NoExecute') {
      errs.push(fieldInvalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op === 'Equal' || op === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(fieldInvalid(`${p}.operator`, value, msgs.join(';')));
    } else if (op === 'Exists') {
      if (value) errs.push(fieldInvalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(fieldNotSupported(`${p}.operator`, op, ['Equal', 'Exists']));
    }
    if (effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(fieldNotSupported(`${p}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

function validateNames(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['serviceAccountName', 'nodeName']) {
    const v = str(spec, f) ?? '';
    if (v) errs.push(...isDNS1123Subdomain(v).map((m) => fieldInvalid(`${path}.${f}`, v, m)));
  }
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number' && (ads < 1 || ads > MAX_INT32)) {
    errs.push(fieldInvalid(`${path}.activeDeadlineSeconds`, ads, inclusiveRangeError(1, MAX_INT32)));
  }
  for (const f of ['hostname', 'subdomain']) {
    const v = str(spec, f) ?? '';
    if (v) errs.push(...validateDNS1123Label(v, `${path}.${f}`));
  }
  errs.push(...validateTolerations(objects(spec, 'tolerations'), `${path}.tolerations`));
  for (const f of ['priorityClassName', 'runtimeClassName']) {
    const v = str(spec, f) ?? '';
    if (v || (f === 'runtimeClassName' && typeof spec[f] === 'string')) {
      errs.push(...isDNS1123Subdomain(v).map((m) => fieldInvalid(`${path}.${f}`, v, m)));
    }
  }
  if (!isNil(spec, 'preemptionPolicy')) {
    const v = str(spec, 'preemptionPolicy') ?? '';
    if (v === '') errs.push(fieldRequired(`${path}.preemptionPolicy`));
    else if (v !== 'PreemptLowerPriority' && v !== 'Never')
      errs.push(fieldNotSupported(`${path}.preemptionPolicy`, v, ['PreemptLowerPriority', 'Never']));
  }
  return errs;
}

/** ValidatePodSpec, in kube's order. `path` is where the spec sits (`spec`, `spec.template.spec`). */
export function validatePodSpec(spec: JsonObject, path: string, ctx: PodSpecContext): FieldError[] {
  const errs: FieldError[] = [];
  if (isNil(spec, 'terminationGracePeriodSeconds')) errs.push(fieldRequired(`${path}.terminationGracePeriodSeconds`));
  const { names: volumes, errs: volumeErrs } = validateVolumes(spec, `${path}.volumes`);
  errs.push(...volumeErrs);
  errs.push(...validateContainers(spec, `${path}.containers`, volumes));
  errs.push(...validateInitContainers(spec, `${path}.initContainers`, volumes));
  if (spec.hostNetwork === true) {
    objects(spec, 'containers').forEach((c, i) => {
      objects(c, 'ports').forEach((p, j) => {
        const hp = num(p, 'hostPort') ?? 0;
        const cp = num(p, 'containerPort') ?? 0;
        if ((ctx.isPod || hp !== 0) && hp !== cp) {
          errs.push(
            fieldInvalid(
              `${path}.containers[${i}].ports[${j}].hostPort`,
              hp,
              'must match `containerPort` when `hostNetwork` is true',
            ),
          );
        }
      });
    });
  }
  const restart = str(spec, 'restartPolicy') ?? '';
  if (restart === '') errs.push(fieldRequired(`${path}.restartPolicy`));
  else if (!['Always', 'OnFailure', 'Never'].includes(restart)) {
    errs.push(fieldNotSupported(`${path}.restartPolicy`, restart, ['Always', 'OnFailure', 'Never']));
  }
  const dns = str(spec, 'dnsPolicy') ?? '';
  if (dns === '') errs.push(fieldRequired(`${path}.dnsPolicy`));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dns)) {
    errs.push(
      fieldNotSupported(`${path}.dnsPolicy`, dns, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']),
    );
  }
  errs.push(...validateLabels(stringMap(spec, 'nodeSelector'), `${path}.nodeSelector`));
  if (dns === 'None') {
    const dnsConfig = obj(spec, 'dnsConfig');
    if (!dnsConfig) errs.push(fieldRequired(`${path}.dnsConfig`, 'must provide `dnsConfig` when `dnsPolicy` is None'));
    else if (!(Array.isArray(dnsConfig.nameservers) && dnsConfig.nameservers.length > 0)) {
      errs.push(
        fieldRequired(
          `${path}.dnsConfig.nameservers`,
          'must provide at least one DNS nameserver when `dnsPolicy` is None',
        ),
      );
    }
  }
  const gates = new Set<string>();
  objects(spec, 'schedulingGates').forEach((g, i) => {
    const name = str(g, 'name') ?? '';
    errs.push(...validateQualifiedName(name, `${path}.schedulingGates[${i}]`));
    if (gates.has(name)) errs.push(fieldDuplicate(`${path}.schedulingGates[${i}]`, name));
    gates.add(name);
  });
  errs.push(...validateNames(spec, path));
  return errs;
}

/** The checks ValidatePodCreate adds on top of the spec for a new Pod. */
export function validatePodCreate(pod: JsonObject): FieldError[] {
  const spec = obj(pod, 'spec') ?? {};
  const errs = validatePodSpec(spec, 'spec', { isPod: true });
  errs.push(...podOnly(spec));
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errs.push(fieldForbidden('spec.ephemeralContainers', 'cannot be set on create'));
  }
  if (!isEmptyString(spec, 'nodeName') && Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    errs.push(fieldForbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

function podOnly(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isEmptyString(spec, 'serviceAccountName')) {
    objects(spec, 'volumes').forEach((v, vi) => {
      objects(obj(v, 'projected'), 'sources').forEach((s, si) => {
        if (!isNil(s, 'serviceAccountToken')) {
          errs.push(
            fieldForbidden(
              `spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`,
              'must not be specified when serviceAccountName is not set',
            ),
          );
        }
      });
    });
  }
  for (const key of ['containers', 'initContainers']) {
    objects(spec, key).forEach((c, i) => {
      const image = str(c, 'image') ?? '';
      if (image !== image.trim())
        errs.push(fieldInvalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

function containerUpdates(next: JsonObject[], prev: JsonObject[], path: string): { errs: FieldError[]; stop: boolean } {
  if (next.length !== prev.length)
    return { errs: [fieldForbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  next.forEach((c, i) => {
    const image = str(c, 'image') ?? '';
    if (image === '') errs.push(fieldRequired(`${path}[${i}].image`));
    if (image !== image.trim())
      errs.push(fieldInvalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** One line per differing leaf: our stand-in for the go-cmp diff kube appends. */
function describeDiff(before: unknown, after: unknown, path: string, out: string[]): void {
  if (semanticEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort())
      describeDiff(before[k], after[k], `${path}.${k}`, out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((b, i) => describeDiff(b, after[i], `${path}[${i}]`, out));
    return;
  }
  out.push(`- ${path}: ${JSON.stringify(before ?? null)}`, `+ ${path}: ${JSON.stringify(after ?? null)}`);
}

/** ValidatePodUpdate (main endpoint). */
export function validatePodUpdate(pod: JsonObject, old: JsonObject): FieldError[] {
  const spec = obj(pod, 'spec') ?? {};
  const oldSpec = obj(old, 'spec') ?? {};
  const errs = validatePodSpec(spec, 'spec', { isPod: true });
  errs.push(...podOnly(spec));
  for (const key of ['containers', 'initContainers']) {
    const r = containerUpdates(objects(spec, key), objects(oldSpec, key), `spec.${key}`);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (typeof ads === 'number') {
    if (ads < 0 || ads > MAX_INT32)
      return [...errs, fieldInvalid('spec.activeDeadlineSeconds', ads, inclusiveRangeError(0, MAX_INT32))];
    if (typeof oldAds === 'number' && oldAds < ads) {
      return [...errs, fieldInvalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value')];
    }
  } else if (typeof oldAds === 'number') {
    errs.push(fieldInvalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  const newTolerations = objects(spec, 'tolerations');
  const modified = objects(oldSpec, 'tolerations').some(
    (o) => !newTolerations.some((n) => semanticEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n)),
  );
  if (modified)
    errs.push(
      fieldForbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
    );
  else errs.push(...validateTolerations(newTolerations, 'spec.tolerations'));
  const oldGates = new Set(objects(oldSpec, 'schedulingGates').map((g) => str(g, 'name') ?? ''));
  objects(spec, 'schedulingGates').forEach((g, i) => {
    const name = str(g, 'name') ?? '';
    if (!oldGates.has(name))
      errs.push(
        fieldForbidden(
          `spec.schedulingGates[${i}].name`,
          `only deletion is allowed, but found new scheduling gate '${name}'`,
        ),
      );
  });
  if (semanticEqual(spec, oldSpec)) return errs;

  const munged: JsonObject = cloneJson(spec);
  for (const key of ['containers', 'initContainers']) {
    const oldList = objects(oldSpec, key);
    if (Array.isArray(munged[key])) objects(munged, key).forEach((c, i) => (c.image = oldList[i]?.image));
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = oldGrace;
  if (oldGates.size > 0) {
    // Gated pods may gain nodeSelector entries (never lose or change them).
    const oldSel = stringMap(oldSpec, 'nodeSelector') ?? {};
    const newSel = stringMap(munged, 'nodeSelector') ?? {};
    if (!semanticEqual(oldSel, newSel)) {
      if (Object.entries(oldSel).some(([k, v]) => newSel[k] !== v)) {
        errs.push(
          fieldInvalid(
            'spec.nodeSelector',
            goStringMapValue(newSel),
            'only additions to spec.nodeSelector are allowed (no mutations or deletions)',
          ),
        );
      }
      munged.nodeSelector = oldSpec.nodeSelector;
    }
  }
  if (!semanticEqual(munged, oldSpec)) {
    const diff: string[] = [];
    describeDiff(oldSpec, munged, 'spec', diff);
    errs.push(
      fieldForbidden(
        'spec',
        `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${diff.join('\n')}`,
      ),
    );
  }
  return errs;
}
