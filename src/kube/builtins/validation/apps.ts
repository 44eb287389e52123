// Validation of the pod-template workloads: apps/v1 Deployment, ReplicaSet, DaemonSet,
// StatefulSet, core/v1 ReplicationController and batch/v1 Job, following pkg/apis/apps/validation,
// pkg/apis/core/validation and batch validation.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoValue,
} from '../../../apimachinery/validation/field-errors.ts';
import { goIntOrString, goLabelSelector, goStringMapValue } from '../go.ts';
import { isNil, num, obj, str, stringMap } from '../json.ts';
import { isValidPercent } from '../names.ts';
import { compileSelector, isEmptySelector, validateLabelSelectorJson } from '../selector.ts';
import { validatePodSpec } from './pod.ts';
import { semanticEqual } from '../../../apimachinery/json/index.ts';
import { isQualifiedName } from '../../../apimachinery/validation/names.ts';
import { validateLabels } from '../../../apimachinery/validation/labels.ts';

export function nonNegative(path: string, v: unknown): FieldError[] {
  return typeof v === 'number' && v < 0 ? [fieldInvalid(path, v, 'must be greater than or equal to 0')] : [];
}

/** ValidatePodTemplateSpec: labels and annotations (reported on `template.labels`), then the spec. */
export function validateTemplate(template: JsonObject, path: string): FieldError[] {
  const md = obj(template, 'metadata');
  const errs = validateLabels(stringMap(md, 'labels'), `${path}.labels`);
  for (const k of Object.keys(obj(md, 'annotations') ?? {}).sort()) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(`${path}.annotations`, k, m));
  }
  errs.push(...validatePodSpec(obj(template, 'spec') ?? {}, `${path}.spec`, { isPod: false }));
  if (
    Array.isArray(obj(template, 'spec')?.ephemeralContainers) &&
    (obj(template, 'spec')?.ephemeralContainers as unknown[]).length > 0
  ) {
    errs.push(fieldForbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

function templateLabels(spec: JsonObject): Record<string, string> | undefined {
  return stringMap(obj(obj(spec, 'template'), 'metadata'), 'labels');
}

function selectorMismatch(spec: JsonObject, path: string): FieldError[] {
  const labels = templateLabels(spec);
  return [
    fieldInvalid(
      `${path}.template.metadata.labels`,
      goStringMapValue(labels),
      '`selector` does not match template `labels`',
    ),
  ];
}

/** The selector block shared by Deployment, ReplicaSet and StatefulSet. */
function validateSelector(
  spec: JsonObject,
  path: string,
  emptyMessage: string,
): { errs: FieldError[]; ok: boolean; matches: boolean } {
  const errs: FieldError[] = [];
  const sel = obj(spec, 'selector');
  if (!sel) errs.push(fieldRequired(`${path}.selector`));
  else {
    errs.push(...validateLabelSelectorJson(sel, `${path}.selector`));
    if (isEmptySelector(sel)) errs.push(fieldInvalid(`${path}.selector`, goLabelSelector(sel), emptyMessage));
  }
  const compiled = compileSelector(spec.selector);
  if (compiled.kind === 'error') return { errs, ok: false, matches: false };
  const labels = templateLabels(spec) ?? {};
  const matches = compiled.kind === 'everything' || (compiled.kind === 'match' && compiled.matches(labels));
  return { errs, ok: true, matches };
}

/**
 * ValidatePodTemplateSpecForReplicaSet (Deployment and ReplicaSet) and, after its selector check,
 * ValidatePodTemplateSpecForRC.
 */
function validateReplicaTemplate(
  spec: JsonObject,
  path: string,
  kind: 'ReplicaSet' | 'ReplicationController',
): FieldError[] {
  const errs: FieldError[] = [];
  const template = obj(spec, 'template') ?? {};
  errs.push(...validateTemplate(template, `${path}.template`));
  const tspec = obj(template, 'spec') ?? {};
  const restart = str(tspec, 'restartPolicy') ?? '';
  if (restart !== 'Always') errs.push(fieldNotSupported(`${path}.template.spec.restartPolicy`, restart, ['Always']));
  if (!isNil(tspec, 'activeDeadlineSeconds')) {
    errs.push(
      fieldForbidden(
        `${path}.template.spec.activeDeadlineSeconds`,
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  }
  return errs;
}

function validateIntOrPercent(path: string, v: unknown): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((m) => fieldInvalid(path, goIntOrString(v), m));
  return nonNegative(path, v);
}

function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && isValidPercent(v).length === 0) return Number(v.slice(0, -1));
  return 0;
}

function notMoreThan100(path: string, v: unknown): FieldError[] {
  if (typeof v !== 'string' || isValidPercent(v).length > 0 || intOrPercentValue(v) <= 100) return [];
  return [fieldInvalid(path, goIntOrString(v), 'must not be greater than 100%')];
}

/** A non-nil pointer prints as an address under `%#v`; no client can match on it. */
function goPointer(type: string, v: unknown): string {
  return v === undefined || v === null ? `(*${type})(nil)` : `(*${type})(0xc000000000)`;
}

/** `%#v` of an update strategy struct (the value kube puts in "unsupported strategy" errors). */
function goStrategy(struct: string, type: string, rollingType: string, ru: unknown): GoValue {
  return new GoValue(
    `apps.${struct}{Type:${JSON.stringify(type)}, RollingUpdate:${goPointer(`apps.${rollingType}`, ru)}}`,
  );
}

function validateDeploymentStrategy(spec: JsonObject, path: string): FieldError[] {
  const strategy = obj(spec, 'strategy') ?? {};
  const type = str(strategy, 'type') ?? '';
  const p = `${path}.strategy`;
  if (type === 'Recreate') {
    return isNil(strategy, 'rollingUpdate')
      ? []
      : [fieldForbidden(`${p}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")];
  }
  if (type === 'RollingUpdate') {
    const ru = obj(strategy, 'rollingUpdate');
    if (!ru) return [fieldRequired(`${p}.rollingUpdate`, 'this should be defaulted and never be nil')];
    const rp = `${p}.rollingUpdate`;
    const errs = [
      ...validateIntOrPercent(`${rp}.maxUnavailable`, ru.maxUnavailable),
      ...validateIntOrPercent(`${rp}.maxSurge`, ru.maxSurge),
    ];
    if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
      errs.push(
        fieldInvalid(`${rp}.maxUnavailable`, goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'),
      );
    }
    errs.push(...notMoreThan100(`${rp}.maxUnavailable`, ru.maxUnavailable));
    return errs;
  }
  return [
    fieldNotSupported(p, goStrategy('DeploymentStrategy', type, 'RollingUpdateDeployment', strategy.rollingUpdate), [
      'Recreate',
      'RollingUpdate',
    ]),
  ];
}

function immutableSelector(o: JsonObject, old: JsonObject | undefined): FieldError[] {
  if (!old) return [];
  const sel = obj(o, 'spec')?.selector;
  const oldSel = obj(old, 'spec')?.selector;
  return semanticEqual(sel, oldSel) ? [] : [fieldInvalid('spec.selector', goLabelSelector(sel), 'field is immutable')];
}

export function validateDeployment(o: JsonObject, old?: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs = nonNegative('spec.replicas', spec.replicas);
  const sel = validateSelector(spec, 'spec', 'empty selector is invalid for deployment');
  errs.push(...sel.errs);
  if (!sel.ok) errs.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), 'invalid label selector'));
  else {
    if (!sel.matches && compileSelector(spec.selector).kind !== 'everything')
      errs.push(...selectorMismatch(spec, 'spec'));
    errs.push(...validateReplicaTemplate(spec, 'spec', 'ReplicaSet'));
  }
  errs.push(...validateDeploymentStrategy(spec, 'spec'));
  errs.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  errs.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  const pds = spec.progressDeadlineSeconds;
  if (typeof pds === 'number') {
    errs.push(...nonNegative('spec.progressDeadlineSeconds', pds));
    if (pds <= (num(spec, 'minReadySeconds') ?? 0))
      errs.push(fieldInvalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  errs.push(...immutableSelector(o, old));
  return errs;
}

export function validateReplicaSet(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs = [
    ...nonNegative('spec.replicas', spec.replicas),
    ...nonNegative('spec.minReadySeconds', spec.minReadySeconds),
  ];
  const sel = validateSelector(spec, 'spec', 'empty selector is invalid for deployment');
  errs.push(...sel.errs);
  if (!sel.ok) errs.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), 'invalid label selector'));
  else {
    if (!sel.matches && compileSelector(spec.selector).kind !== 'everything')
      errs.push(...selectorMismatch(spec, 'spec'));
    errs.push(...validateReplicaTemplate(spec, 'spec', 'ReplicaSet'));
  }
  return errs;
}

/** ValidateReplicationControllerSpec: an equality-based selector (a map) that must not be empty. */
export function validateReplicationController(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs = nonNegative('spec.minReadySeconds', spec.minReadySeconds);
  const selector = stringMap(spec, 'selector') ?? {};
  const empty = Object.keys(selector).length === 0;
  if (empty) errs.push(fieldRequired('spec.selector'));
  errs.push(...nonNegative('spec.replicas', spec.replicas));
  if (!obj(spec, 'template')) {
    errs.push(fieldRequired('spec.template'));
    return errs;
  }
  const labels = templateLabels(spec) ?? {};
  if (!empty && !Object.entries(selector).every(([k, v]) => labels[k] === v))
    errs.push(...selectorMismatch(spec, 'spec'));
  errs.push(...validateReplicaTemplate(spec, 'spec', 'ReplicationController'));
  return errs;
}

function validateDaemonSetStrategy(spec: JsonObject): FieldError[] {
  const strategy = obj(spec, 'updateStrategy') ?? {};
  const type = str(strategy, 'type') ?? '';
  const p = 'spec.updateStrategy';
  if (type === 'OnDelete') return [];
  if (type === 'RollingUpdate') {
    const ru = obj(strategy, 'rollingUpdate');
    if (!ru) return [fieldRequired(`${p}.rollingUpdate`)];
    const rp = `${p}.rollingUpdate`;
    const errs = [
      ...validateIntOrPercent(`${rp}.maxUnavailable`, ru.maxUnavailable),
      ...validateIntOrPercent(`${rp}.maxSurge`, ru.maxSurge),
      ...notMoreThan100(`${rp}.maxUnavailable`, ru.maxUnavailable),
      ...notMoreThan100(`${rp}.maxSurge`, ru.maxSurge),
    ];
    const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
    const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
    if (hasUnavailable && hasSurge)
      errs.push(
        fieldInvalid(`${rp}.maxSurge`, goIntOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'),
      );
    if (!hasUnavailable && !hasSurge)
      errs.push(fieldRequired(`${rp}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
    return errs;
  }
  return [
    fieldNotSupported(
      p,
      goStrategy('DaemonSetUpdateStrategy', type, 'RollingUpdateDaemonSet', strategy.rollingUpdate),
      ['RollingUpdate', 'OnDelete'],
    ),
  ];
}

export function validateDaemonSet(o: JsonObject, old?: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs = validateLabelSelectorJson(spec.selector, 'spec.selector');
  const compiled = compileSelector(spec.selector);
  const labels = templateLabels(spec) ?? {};
  if (
    compiled.kind !== 'error' &&
    !(compiled.kind === 'everything' || (compiled.kind === 'match' && compiled.matches(labels)))
  ) {
    errs.push(...selectorMismatch(spec, 'spec'));
  }
  const sel = obj(spec, 'selector');
  if (sel && isEmptySelector(sel))
    errs.push(fieldInvalid('spec.selector', goLabelSelector(sel), 'empty selector is invalid for daemonset'));
  const template = obj(spec, 'template') ?? {};
  errs.push(...validateTemplate(template, 'spec.template'));
  const tspec = obj(template, 'spec') ?? {};
  const restart = str(tspec, 'restartPolicy') ?? '';
  if (restart !== 'Always') errs.push(fieldNotSupported('spec.template.spec.restartPolicy', restart, ['Always']));
  if (!isNil(tspec, 'activeDeadlineSeconds')) {
    errs.push(
      fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'),
    );
  }
  errs.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  errs.push(...validateDaemonSetStrategy(spec));
  errs.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  errs.push(...immutableSelector(o, old));
  return errs;
}

const STS_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

export function validateStatefulSet(o: JsonObject, old?: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs: FieldError[] = [];
  const pmp = str(spec, 'podManagementPolicy') ?? '';
  if (pmp === '') errs.push(fieldRequired('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel')
    errs.push(fieldInvalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = obj(spec, 'updateStrategy') ?? {};
  const type = str(strategy, 'type') ?? '';
  const ru = obj(strategy, 'rollingUpdate');
  if (type === '') errs.push(fieldRequired('spec.updateStrategy'));
  else if (type === 'OnDelete') {
    if (ru)
      errs.push(
        fieldInvalid(
          'spec.updateStrategy.rollingUpdate',
          new GoValue(
            `apps.RollingUpdateStatefulSetStrategy{Partition:${num(ru, 'partition') ?? 0}, MaxUnavailable:${goPointer('intstr.IntOrString', ru.maxUnavailable)}}`,
          ),
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      );
  } else if (type === 'RollingUpdate') {
    if (ru) {
      errs.push(...nonNegative('spec.updateStrategy.rollingUpdate.partition', ru.partition));
      if (!isNil(ru, 'maxUnavailable')) {
        const mp = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
        errs.push(...validateIntOrPercent(mp, ru.maxUnavailable));
        if (intOrPercentValue(ru.maxUnavailable) === 0)
          errs.push(fieldInvalid(mp, goIntOrString(ru.maxUnavailable), 'cannot be 0'));
        errs.push(...notMoreThan100(mp, ru.maxUnavailable));
      }
    }
  } else {
    errs.push(
      fieldInvalid(
        'spec.updateStrategy',
        goStrategy('StatefulSetUpdateStrategy', type, 'RollingUpdateStatefulSetStrategy', strategy.rollingUpdate),
        "must be 'RollingUpdate' or 'OnDelete'",
      ),
    );
  }
  const retention = obj(spec, 'persistentVolumeClaimRetentionPolicy');
  if (retention) {
    for (const f of ['whenDeleted', 'whenScaled']) {
      const v = str(retention, f) ?? '';
      if (v !== 'Retain' && v !== 'Delete')
        errs.push(fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']));
    }
  }
  errs.push(...nonNegative('spec.replicas', spec.replicas));
  errs.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  errs.push(...nonNegative('spec.ordinals.start', obj(spec, 'ordinals')?.start));
  const sel = validateSelector(spec, 'spec', 'empty selector is invalid for statefulset');
  errs.push(...sel.errs);
  if (!sel.ok) errs.push(fieldInvalid('spec.selector', goLabelSelector(spec.selector), ''));
  else {
    if (!sel.matches && compileSelector(spec.selector).kind !== 'everything')
      errs.push(...selectorMismatch(spec, 'spec'));
    // StatefulSet validation checks only the template's metadata, not its PodSpec.
    const md = obj(obj(spec, 'template'), 'metadata');
    errs.push(...validateLabels(stringMap(md, 'labels'), 'spec.template.labels'));
  }
  const tspec = obj(obj(spec, 'template'), 'spec') ?? {};
  const restart = str(tspec, 'restartPolicy') ?? '';
  if (restart !== 'Always') errs.push(fieldNotSupported('spec.template.spec.restartPolicy', restart, ['Always']));
  if (!isNil(tspec, 'activeDeadlineSeconds')) {
    errs.push(
      fieldForbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in StatefulSet is not Supported',
      ),
    );
  }
  if (old) {
    const oldSpec = obj(old, 'spec') ?? {};
    const strip = (s: JsonObject): JsonObject =>
      Object.fromEntries(Object.entries(s).filter(([k]) => !STS_MUTABLE.includes(k)));
    if (!semanticEqual(strip(spec), strip(oldSpec))) {
      errs.push(
        fieldForbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
    }
  }
  return errs;
}

export function validateJob(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) {
    errs.push(...nonNegative(`spec.${f}`, spec[f]));
  }
  const sel = obj(spec, 'selector');
  if (!sel) errs.push(fieldRequired('spec.selector'));
  else errs.push(...validateLabelSelectorJson(sel, 'spec.selector'));
  const compiled = compileSelector(spec.selector);
  const unmatched =
    compiled.kind === 'nothing' || (compiled.kind === 'match' && !compiled.matches(templateLabels(spec) ?? {}));
  if (unmatched) errs.push(...selectorMismatch(spec, 'spec'));
  const template = obj(spec, 'template') ?? {};
  errs.push(...validateTemplate(template, 'spec.template'));
  const restart = str(obj(template, 'spec'), 'restartPolicy') ?? '';
  if (restart !== 'OnFailure' && restart !== 'Never')
    errs.push(fieldNotSupported('spec.template.spec.restartPolicy', restart, ['OnFailure', 'Never']));
  return errs;
}

/** Pod templates outside workloads (core/v1 PodTemplate). */
export function validatePodTemplate(o: JsonObject): FieldError[] {
  return validateTemplate(obj(o, 'template') ?? {}, 'template');
}
