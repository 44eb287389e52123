// Which node deployment to roll now, if any. Rolling a node replaces its VM (Recreate: the old
// one drains and stops before the new one boots), so updates go one node at a time, and only
// while the cluster is whole:
//   1. the workload cluster's API must answer (its master nodes are checked below);
//   2. every deployment must be fully rolled out: replicas, updated, ready and available replicas
//      all equal to spec.replicas, and the controller must have observed the latest generation;
//   3. the first deployment by name whose version annotations (release-version, version-bundle-
//      version) differ is the candidate. Pod-spec-only differences are ignored, as upstream: a
//      change of images or flags alone would restart every VM of every cluster at once, so a
//      rollout happens only when a cluster is moved to another release or operator version;
//   4. workers wait while a workload master is unschedulable, tainted NoSchedule (other than the
//      master taint every master carries) or NoExecute: a master being replaced or drained must
//      come back before workers are taken away;
//   5. one deployment per loop.
// Names sort masters before workers ("master-…" < "worker-…"), so masters roll first.
import type { KubeObject } from '../../../runtime/index.ts';
import { Annotations, Labels } from '../../api/labels.ts';
import type { Deployment } from './deployment-types.ts';
import type { NodeTaint } from './ignition.ts';
import { roleOf } from './deployment-spec.ts';

/** A workload-cluster Node, with the fields the gate reads. */
export interface WorkloadNode extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: NodeTaint[] };
}

export interface ThrottleInput {
  /** Our deployments as stored (with status). */
  current: readonly Deployment[];
  desired: readonly Deployment[];
  /** The workload cluster's nodes (only role=master ones are read); undefined when its API is unavailable. */
  workloadNodes: readonly WorkloadNode[] | undefined;
}

export interface ThrottleDecision {
  /** The object to write (the stored deployment with the desired spec, labels and annotations). */
  update?: Deployment;
  /** Why this one, or why none: for the log. */
  reason: string;
}

const VERSION_ANNOTATIONS = [Annotations.releaseVersion, Annotations.versionBundleVersion];

const byName = (a: Deployment, b: Deployment): number =>
  (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0;

/** True when a deployment has finished its last rollout and all its replicas are available. */
export function isRolledOut(d: Deployment): boolean {
  const s = d.status ?? {};
  const want = d.spec?.replicas ?? 1;
  const counts = [s.replicas, s.updatedReplicas, s.readyReplicas, s.availableReplicas].map((n) => n ?? 0);
  // observedGeneration: a just-written spec has status from the previous one (or none at all, which
  // upstream read as "all zero, all equal, ready"); spec.replicas: between Recreate's scale-down and
  // scale-up every count is 0 as well.
  return (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 1) && counts.every((n) => n === want);
}

/** True when the release or operator version a deployment was built for is not the desired one. */
export function versionChanged(current: Deployment, desired: Deployment): boolean {
  return VERSION_ANNOTATIONS.some((a) => current.metadata.annotations?.[a] !== desired.metadata.annotations?.[a]);
}

/** Upstream's NodeIsUnschedulable: cordoned, tainted NoSchedule (other than the master taint), or NoExecute. */
export function isNodeUnschedulable(n: WorkloadNode): boolean {
  if (n.spec?.unschedulable) return true;
  return (n.spec?.taints ?? []).some(
    (t) => (t.effect === 'NoSchedule' && t.key !== Labels.nodeRoleMaster) || t.effect === 'NoExecute',
  );
}

/** Names (sorted) of stored deployments whose version annotations differ from the desired ones. */
export function pendingUpdates(current: readonly Deployment[], desired: readonly Deployment[]): string[] {
  const want = new Map(desired.map((d) => [d.metadata.name, d]));
  return [...current]
    .sort(byName)
    .filter((c) => {
      const d = want.get(c.metadata.name);
      return d !== undefined && versionChanged(c, d);
    })
    .map((c) => c.metadata.name ?? '');
}

/**
 * The write of an update: the stored object (so its resourceVersion guards against a concurrent
 * change) with our spec and labels, and our annotations over the stored ones (the deployment
 * controller keeps its revision there).
 */
export function updatedDeployment(current: Deployment, desired: Deployment): Deployment {
  return {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    metadata: {
      ...current.metadata,
      labels: desired.metadata.labels,
      annotations: { ...current.metadata.annotations, ...desired.metadata.annotations },
    },
    spec: desired.spec,
  };
}

export function deploymentToUpdate(input: ThrottleInput): ThrottleDecision {
  const pending = pendingUpdates(input.current, input.desired);
  if (pending.length === 0) return { reason: 'every deployment is at the desired versions' };
  if (!input.workloadNodes) return { reason: 'the workload cluster API is unavailable' };
  const rolling = [...input.current].sort(byName).find((d) => !isRolledOut(d));
  if (rolling) return { reason: `deployment ${rolling.metadata.name} is not fully rolled out yet` };
  const blockingMaster = input.workloadNodes.find(
    (n) => n.metadata.labels?.[Labels.role] === 'master' && isNodeUnschedulable(n),
  );
  const current = new Map(input.current.map((d) => [d.metadata.name, d]));
  const desired = new Map(input.desired.map((d) => [d.metadata.name, d]));
  for (const name of pending) {
    const c = current.get(name) as Deployment;
    const d = desired.get(name) as Deployment;
    if (roleOf(d) === 'worker' && blockingMaster) continue;
    return { update: updatedDeployment(c, d), reason: `deployment ${name} is the first at other versions` };
  }
  return {
    reason: `workers wait: workload master ${blockingMaster?.metadata.name ?? ''} is unschedulable or tainted`,
  };
}
