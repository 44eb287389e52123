// What a built-in kind's strategy does to an update before validation (PrepareForUpdate):
// which half of the object each endpoint may change, metadata.generation bookkeeping, and the
// kind-specific carry-overs (Namespace finalizers, Service allocations, DaemonSet template
// generation). Unlike custom resources, built-in /status writes keep their metadata edits; each
// strategy resets only the fields listed below.
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { ensureObj, obj, str } from './json.ts';
import {
  initServiceIpFamilies,
  normalizeClusterIps,
  patchAllocatedValues,
  dropTypeDependentFields,
} from './service.ts';
import { cloneJson, semanticEqual } from '../../apimachinery/json/index.ts';

export type Subresource = 'main' | 'status' | 'finalize';

export interface UpdateOptions {
  /** Family of the Service CIDR, for Service IP family carry-over. */
  serviceIpFamily?: 'IPv4' | 'IPv6';
}

/** Kinds with a status subresource: their main endpoint keeps the stored status. */
const STATUS_KINDS = new Set([
  '/Pod',
  '/Service',
  '/Namespace',
  '/Node',
  '/PersistentVolumeClaim',
  '/PersistentVolume',
  '/ReplicationController',
  '/ResourceQuota',
  'apps/Deployment',
  'apps/ReplicaSet',
  'apps/DaemonSet',
  'apps/StatefulSet',
  'batch/Job',
  'batch/CronJob',
  'policy/PodDisruptionBudget',
  'networking.k8s.io/Ingress',
  'autoscaling/HorizontalPodAutoscaler',
  'apiregistration.k8s.io/APIService',
  'apiextensions.k8s.io/CustomResourceDefinition',
]);

const specChanged = (n: JsonObject, o: JsonObject): boolean => !semanticEqual(n.spec, o.spec);

/** When a kind's generation moves: upstream strategies compare these parts of the object. */
const GENERATION_RULES: Record<string, (n: JsonObject, o: JsonObject) => boolean> = {
  // Annotations too: the deployment controller copies them onto ReplicaSets
  // (pkg/registry/apps/deployment/strategy.go PrepareForUpdate). ReplicaSet, StatefulSet and
  // DaemonSet compare the spec only (their strategy.go files).
  'apps/Deployment': (n, o) =>
    specChanged(n, o) || !semanticEqual(obj(n, 'metadata')?.annotations, obj(o, 'metadata')?.annotations),
  'apps/ReplicaSet': specChanged,
  'apps/StatefulSet': specChanged,
  'apps/DaemonSet': specChanged,
  'batch/Job': specChanged,
  'batch/CronJob': specChanged,
  '/ReplicationController': specChanged,
  // Pods carry metadata.generation since 1.33 (observedGeneration in pod status and conditions).
  '/Pod': specChanged,
  'policy/PodDisruptionBudget': specChanged,
  'networking.k8s.io/Ingress': specChanged,
  'networking.k8s.io/IngressClass': specChanged,
  'networking.k8s.io/NetworkPolicy': specChanged,
  'apiextensions.k8s.io/CustomResourceDefinition': specChanged,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': specChanged,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': (n, o) => !semanticEqual(n.webhooks, o.webhooks),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': (n, o) => !semanticEqual(n.webhooks, o.webhooks),
};

/**
 * Whether an update moves metadata.generation: the kind's PrepareForUpdate rule on the main
 * endpoint (and subresources writing through it); never on /status, whose strategies leave it.
 * Undefined for kinds without a rule.
 */
export function generationChanged(
  group: string,
  kind: string,
  newObj: JsonObject,
  oldObj: JsonObject,
  subresource: string = 'main',
): boolean | undefined {
  const rule = GENERATION_RULES[`${group}/${kind}`];
  if (rule === undefined) return undefined;
  return subresource !== 'status' && rule(newObj, oldObj);
}

/** Whether the kind keeps metadata.generation (starting at 1 on create). */
export function hasGeneration(group: string, kind: string): boolean {
  return `${group}/${kind}` in GENERATION_RULES;
}

/** Whether the kind has a /status subresource whose fields the main endpoint ignores. */
export function hasStatusSubresource(group: string, kind: string): boolean {
  return STATUS_KINDS.has(`${group}/${kind}`);
}

const DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function copyField(to: JsonObject, from: JsonObject, key: string): void {
  if (from[key] === undefined) delete to[key];
  else to[key] = cloneJson(from[key]);
}

function copyMetaField(to: JsonObject, from: JsonObject, key: string): void {
  copyField(ensureObj(to, 'metadata'), obj(from, 'metadata') ?? {}, key);
}

function setAnnotation(o: JsonObject, key: string, value: string | undefined): void {
  const md = ensureObj(o, 'metadata');
  if (value === undefined) {
    const annotations = obj(md, 'annotations');
    if (annotations) delete annotations[key];
    return;
  }
  ensureObj(md, 'annotations')[key] = value;
}

/**
 * Applies the kind's PrepareForUpdate to `newObj` (mutated) given the stored `oldObj`: the main
 * endpoint keeps the stored status, `/status` keeps the stored spec, and generation moves only
 * when the kind's rule says the desired state changed.
 */
export function prepareForUpdate(
  group: string,
  kind: string,
  newObj: JsonObject,
  oldObj: JsonObject,
  subresource: Subresource = 'main',
  opts: UpdateOptions = {},
): void {
  const key = `${group}/${kind}`;
  if (subresource === 'status') prepareStatusWrite(key, newObj, oldObj);
  else if (subresource === 'finalize') copyField(newObj, oldObj, 'status');
  else prepareMainWrite(key, newObj, oldObj, opts);

  const oldGen = obj(oldObj, 'metadata')?.generation;
  const md = ensureObj(newObj, 'metadata');
  if (typeof oldGen !== 'number') {
    delete md.generation;
    return;
  }
  const bump = subresource === 'main' && generationChanged(group, kind, newObj, oldObj) === true;
  md.generation = oldGen + (bump ? 1 : 0);
}

function prepareMainWrite(key: string, n: JsonObject, o: JsonObject, opts: UpdateOptions): void {
  if (STATUS_KINDS.has(key)) copyField(n, o, 'status');
  switch (key) {
    case '/Namespace':
      // Finalizers change only through /finalize.
      copyField(ensureObj(n, 'spec'), obj(o, 'spec') ?? {}, 'finalizers');
      break;
    case '/Service': {
      const spec = ensureObj(n, 'spec');
      const oldSpec = obj(o, 'spec') ?? {};
      patchAllocatedValues(spec, oldSpec);
      normalizeClusterIps(spec, oldSpec);
      dropTypeDependentFields(spec, oldSpec);
      initServiceIpFamilies(spec, oldSpec, opts.serviceIpFamily ?? 'IPv4');
      break;
    }
    case 'apps/DaemonSet': {
      // The annotation is apps/v1's spelling of spec.templateGeneration: it follows the template.
      const old = str(obj(obj(o, 'metadata'), 'annotations'), DS_TEMPLATE_GENERATION);
      const changed = !semanticEqual(obj(n, 'spec')?.template, obj(o, 'spec')?.template);
      const next = old !== undefined && changed && Number.isInteger(Number(old)) ? String(Number(old) + 1) : old;
      setAnnotation(n, DS_TEMPLATE_GENERATION, next);
      break;
    }
  }
}

function prepareStatusWrite(key: string, n: JsonObject, o: JsonObject): void {
  if (!STATUS_KINDS.has(key)) return;
  copyField(n, o, 'spec');
  switch (key) {
    case 'apps/Deployment':
      copyMetaField(n, o, 'labels');
      break;
    case 'apps/DaemonSet':
      setAnnotation(n, DS_TEMPLATE_GENERATION, str(obj(obj(o, 'metadata'), 'annotations'), DS_TEMPLATE_GENERATION));
      break;
    case '/Pod': {
      // Old kubelets corrupted ownerReferences through /status; QoS is fixed at creation.
      copyMetaField(n, o, 'ownerReferences');
      const status = ensureObj(n, 'status');
      const oldStatus = obj(o, 'status') ?? {};
      if (!status.qosClass && oldStatus.qosClass) status.qosClass = oldStatus.qosClass;
      if (!status.observedGeneration && oldStatus.observedGeneration)
        status.observedGeneration = oldStatus.observedGeneration;
      preserveConditionGenerations(status, oldStatus);
      break;
    }
  }
}

/** Conditions written without observedGeneration keep the one the stored condition had. */
function preserveConditionGenerations(status: JsonObject, oldStatus: JsonObject): void {
  const olds = new Map<string, unknown[]>();
  for (const c of Array.isArray(oldStatus.conditions) ? oldStatus.conditions : []) {
    if (c && typeof c === 'object' && !Array.isArray(c)) {
      const t = String(c.type ?? '');
      olds.set(t, [...(olds.get(t) ?? []), c.observedGeneration]);
    }
  }
  for (const c of Array.isArray(status.conditions) ? status.conditions : []) {
    if (!c || typeof c !== 'object' || Array.isArray(c)) continue;
    const queue = olds.get(String(c.type ?? '')) ?? [];
    const prev = queue.shift();
    if (!c.observedGeneration && typeof prev === 'number' && prev !== 0) c.observedGeneration = prev;
  }
}
