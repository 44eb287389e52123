// A StatefulSet pod's identity and storage, after kube's pkg/controller/statefulset/
// stateful_set_utils.go: `<set>-<ordinal>` names, the pod-name and pod-index labels, hostname and
// subdomain from spec.serviceName, one PVC `<claim>-<set>-<ordinal>` per volumeClaimTemplate and
// the owner references persistentVolumeClaimRetentionPolicy asks for.
import { isPodReady } from '../../../../apimachinery/core/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta, OwnerReference } from '../../../../apimachinery/meta/index.ts';
import { availability, int, labelsOf, ownerRefTo, phaseOf, type WorkloadObject } from '../common.ts';

/** apps.StatefulSetPodNameLabel. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps.PodIndexLabel (feature PodIndexLabel, on since 1.28). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
/** apps.StatefulSetRevisionLabel: the ControllerRevision name a pod was made from. */
export const REVISION_LABEL = 'controller-revision-hash';

const ORDINAL = /^(.*)-([0-9]+)$/;

/** getOrdinal: the ordinal in a pod's name, -1 when the name has none. */
export function ordinalOf(pod: WorkloadObject): number {
  const m = ORDINAL.exec(pod.metadata.name ?? '');
  if (!m) return -1;
  const n = Number(m[2]);
  return Number.isSafeInteger(n) && n <= 2147483647 ? n : -1;
}

/** isMemberOf: the pod's name is `<set>-<ordinal>`. */
export function isMemberOf(set: WorkloadObject, pod: WorkloadObject): boolean {
  return ORDINAL.exec(pod.metadata.name ?? '')?.[1] === set.metadata.name;
}

/** getStartOrdinal: spec.ordinals.start (StatefulSetStartOrdinal), else 0. */
export function startOrdinal(set: WorkloadObject): number {
  return isObject(set.spec.ordinals) ? int(set.spec.ordinals.start) : 0;
}

export function replicaCount(set: WorkloadObject): number {
  return int(set.spec.replicas, 1);
}

/** podInOrdinalRange. */
export function inOrdinalRange(set: WorkloadObject, pod: WorkloadObject): boolean {
  const ord = ordinalOf(pod);
  const start = startOrdinal(set);
  return ord >= start && ord < start + replicaCount(set);
}

export function podName(set: WorkloadObject, ordinal: number): string {
  return `${set.metadata.name}-${ordinal}`;
}

export function podRevision(pod: WorkloadObject): string {
  return labelsOf(pod)[REVISION_LABEL] ?? '';
}

export const isTerminating = (pod: WorkloadObject): boolean => Boolean(pod.metadata.deletionTimestamp);
export const isFailedOrSucceeded = (pod: WorkloadObject): boolean =>
  phaseOf(pod) === 'Failed' || phaseOf(pod) === 'Succeeded';
export const isRunningAndReady = (pod: WorkloadObject): boolean => phaseOf(pod) === 'Running' && isPodReady(pod);
/** isHealthy: running, ready and not terminating. */
export const isHealthy = (pod: WorkloadObject): boolean => isRunningAndReady(pod) && !isTerminating(pod);

/** isRunningAndAvailable: true, or the ms until it is (Ready but not for minReadySeconds yet), or false. */
export function runningAndAvailable(pod: WorkloadObject, minReadySeconds: number, now: number): true | number | false {
  return phaseOf(pod) === 'Running' ? availability(pod, minReadySeconds, now) : false;
}

/** The volumeClaimTemplates that have a name. */
export function claimTemplates(set: WorkloadObject): JsonObject[] {
  const templates = Array.isArray(set.spec.volumeClaimTemplates) ? set.spec.volumeClaimTemplates : [];
  return templates.filter(
    (t): t is JsonObject => isObject(t) && isObject(t.metadata) && typeof t.metadata.name === 'string',
  );
}

const templateName = (t: JsonObject): string => String((t.metadata as ObjectMeta).name);

/** getPersistentVolumeClaimName. */
export function claimName(set: WorkloadObject, template: JsonObject, ordinal: number): string {
  return `${templateName(template)}-${set.metadata.name}-${ordinal}`;
}

/** getPersistentVolumeClaims: the template's claim, named for the ordinal, labelled with the selector's matchLabels. */
export function newClaim(set: WorkloadObject, template: JsonObject, ordinal: number): JsonObject {
  const tm = template.metadata as ObjectMeta;
  const matchLabels =
    isObject(set.spec.selector) && isObject(set.spec.selector.matchLabels) ? set.spec.selector.matchLabels : {};
  const metadata: ObjectMeta = {
    name: claimName(set, template, ordinal),
    namespace: set.metadata.namespace,
    labels: { ...(isObject(tm.labels) ? tm.labels : {}), ...(matchLabels as Record<string, string>) },
  };
  if (isObject(tm.annotations)) metadata.annotations = { ...tm.annotations };
  if (Array.isArray(tm.finalizers)) metadata.finalizers = [...tm.finalizers];
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: metadata as JsonObject,
    spec: structuredClone(isObject(template.spec) ? template.spec : {}),
  };
}

/**
 * newStatefulSetPod: GetPodFromTemplate (generateName `<set>-`, the template's labels, annotations
 * and finalizers, a controller reference), then initIdentity and updateStorage.
 */
export function newPod(set: WorkloadObject, ordinal: number, revision: string): JsonObject {
  const template = set.spec.template as JsonObject;
  const tm = (isObject(template.metadata) ? template.metadata : {}) as ObjectMeta;
  const name = podName(set, ordinal);
  const metadata: ObjectMeta = {
    name,
    generateName: `${set.metadata.name}-`,
    namespace: set.metadata.namespace,
    labels: {
      ...labelsOf(template),
      [POD_NAME_LABEL]: name,
      [POD_INDEX_LABEL]: String(ordinal),
      [REVISION_LABEL]: revision,
    },
    ownerReferences: [ownerRefTo('StatefulSet', set)],
  };
  if (isObject(tm.annotations)) metadata.annotations = { ...tm.annotations };
  if (Array.isArray(tm.finalizers) && tm.finalizers.length > 0) metadata.finalizers = [...tm.finalizers];
  const spec = structuredClone(template.spec as JsonObject);
  spec.hostname = name;
  if (typeof set.spec.serviceName === 'string' && set.spec.serviceName) spec.subdomain = set.spec.serviceName;
  else delete spec.subdomain;
  // updateStorage: one volume per claim template (replacing a template volume of that name).
  const claims = claimTemplates(set);
  const claimed = new Set(claims.map(templateName));
  const others = (Array.isArray(spec.volumes) ? spec.volumes : []).filter(
    (v) => !(isObject(v) && claimed.has(String(v.name))),
  );
  const volumes = [
    ...claims.map((t) => ({
      name: templateName(t),
      persistentVolumeClaim: { claimName: claimName(set, t, ordinal) },
    })),
    ...others,
  ];
  if (volumes.length > 0) spec.volumes = volumes;
  return { apiVersion: 'v1', kind: 'Pod', metadata: metadata as JsonObject, spec };
}

/** identityMatches, for the labels a pod update may fix (hostname and subdomain are immutable). */
export function identityLabelsMatch(set: WorkloadObject, pod: WorkloadObject): boolean {
  const ord = ordinalOf(pod);
  const labels = labelsOf(pod);
  return (
    labels[POD_NAME_LABEL] === pod.metadata.name && labels[POD_INDEX_LABEL] === String(ord) && isMemberOf(set, pod)
  );
}

// ---------------------------------------------------------------- PVC retention

type Policy = 'Retain' | 'Delete';

function retentionPolicy(set: WorkloadObject): { whenDeleted: Policy; whenScaled: Policy } {
  const p = isObject(set.spec.persistentVolumeClaimRetentionPolicy)
    ? set.spec.persistentVolumeClaimRetentionPolicy
    : {};
  return {
    whenDeleted: p.whenDeleted === 'Delete' ? 'Delete' : 'Retain',
    whenScaled: p.whenScaled === 'Delete' ? 'Delete' : 'Retain',
  };
}

/**
 * updateClaimOwnerRefForSetAndPod: which of the set and the pod should own a claim. WhenDeleted:
 * Delete hands it to the set (deleted with it); WhenScaled: Delete hands a scaled-down pod's claims
 * to the pod (deleted with it). The references are plain ones, neither controller nor blocking.
 */
export function claimOwners(
  set: WorkloadObject,
  pod: WorkloadObject | undefined,
  scaledDown: boolean,
): { set: boolean; pod: boolean } {
  const { whenDeleted, whenScaled } = retentionPolicy(set);
  if (whenScaled === 'Delete' && scaledDown) return { set: false, pod: pod !== undefined };
  return { set: whenDeleted === 'Delete', pod: false };
}

function plainRef(kind: string, apiVersion: string, o: WorkloadObject): OwnerReference {
  return { apiVersion, kind, name: o.metadata.name!, uid: o.metadata.uid! };
}

/** The claim's owner references with the set's and the pod's set or removed as `owners` says; undefined when unchanged. */
export function withClaimOwners(
  refs: OwnerReference[] | undefined,
  set: WorkloadObject,
  pod: WorkloadObject | undefined,
  owners: { set: boolean; pod: boolean },
): OwnerReference[] | undefined {
  let next = [...(refs ?? [])];
  const apply = (want: boolean, ref: OwnerReference): void => {
    const has = next.some((r) => r.uid === ref.uid);
    if (want && !has) next.push(ref);
    if (!want && has) next = next.filter((r) => r.uid !== ref.uid);
  };
  apply(owners.set, plainRef('StatefulSet', 'apps/v1', set));
  if (pod) apply(owners.pod, plainRef('Pod', 'v1', pod));
  const same = next.length === (refs ?? []).length && next.every((r, i) => r.uid === refs?.[i]?.uid);
  return same ? undefined : next;
}
