// The pure half of the status handler: from (current status, desired version, workload nodes) to
// the next status. Two kinds of conditions:
//   status.cluster.conditions: upstream's lifecycle (Creating, Created, Updating, Updated,
//     Deleting), read by Giant Swarm tooling. One entry per type, the latest last; a new entry
//     replaces its counterpart as upstream's did (Created replaces Creating, Updating ↔ Updated).
//   status.conditions: ours, standard metav1.Conditions (SpecValid, WorkloadClusterReachable, Ready).
// One lifecycle transition per call: each write ends the loop and the next loop takes the next step.
import { isNodeReady } from '../../../apimachinery/core/index.ts';
import type { ConditionInput, KubeObject } from '../../../runtime/index.ts';
import { Labels } from '../../api/labels.ts';
import type { ClusterCondition, KVMConfigStatus } from '../../api/kvmconfig.ts';

export type ClusterStatus = NonNullable<KVMConfigStatus['cluster']>;
export type ClusterStatusNode = NonNullable<ClusterStatus['nodes']>[number];
export type ClusterConditionType = ClusterCondition['type'];

/** status.cluster.versions keeps this many entries, the newest last. */
export const MAX_VERSIONS = 5;

export const ConditionTypes = {
  SpecValid: 'SpecValid',
  WorkloadClusterReachable: 'WorkloadClusterReachable',
  Ready: 'Ready',
} as const;

/** What the status handler needs to know about one workload-cluster node. */
export interface WorkloadNodeView {
  name: string;
  /** Its kvm-operator.giantswarm.io/version label ("" when unset). */
  version: string;
  labels: Record<string, string>;
  /** Runs the desired operator (and, when labelled, release) version. */
  upToDate: boolean;
  ready: boolean;
}

export interface WorkloadNodeObject extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

export function workloadNodeView(node: WorkloadNodeObject, operatorVersion: string, release: string): WorkloadNodeView {
  const labels = node.metadata.labels ?? {};
  const version = labels[Labels.operatorVersion] ?? '';
  const nodeRelease = labels[Labels.releaseVersion];
  return {
    name: node.metadata.name ?? '',
    version,
    labels,
    upToDate: version === operatorVersion && (nodeRelease === undefined || nodeRelease === release),
    ready: isNodeReady(node),
  };
}

export interface ClusterStatusInput {
  /** The version the cluster should run: its release label, else its operator version label. */
  desiredVersion: string;
  /** masters + workers in the spec. */
  expectedNodes: number;
  /** The workload cluster's nodes; undefined when its API could not be read. */
  nodes: WorkloadNodeView[] | undefined;
  /** metav1.Time of this loop. */
  now: string;
}

const COUNTERPART: Partial<Record<ClusterConditionType, ClusterConditionType>> = {
  Created: 'Creating',
  Updating: 'Updated',
  Updated: 'Updating',
  Deleted: 'Deleting',
};

export function latestClusterCondition(status: ClusterStatus | undefined): ClusterConditionType | undefined {
  return status?.conditions?.at(-1)?.type;
}

/** `conditions` with `type` last (True, at `now`), its earlier entry and its counterpart removed. */
export function withClusterCondition(
  conditions: ClusterCondition[] = [],
  type: ClusterConditionType,
  now: string,
): ClusterCondition[] {
  const drop = new Set([type, COUNTERPART[type]]);
  return [...conditions.filter((c) => !drop.has(c.type)), { type, status: 'True', lastTransitionTime: now }];
}

function withVersion(versions: ClusterStatus['versions'] = [], semver: string, now: string): ClusterStatus['versions'] {
  if (versions.at(-1)?.semver === semver) return versions;
  return [...versions, { semver, lastTransitionTime: now }].slice(-MAX_VERSIONS);
}

/** Nodes sorted by name; an unchanged node keeps its lastTransitionTime, so a stable cluster writes nothing. */
function statusNodes(previous: ClusterStatusNode[] = [], nodes: WorkloadNodeView[], now: string): ClusterStatusNode[] {
  const before = new Map(previous.map((n) => [n.name, n]));
  return [...nodes]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((n) => {
      const p = before.get(n.name);
      const same =
        p !== undefined &&
        p.version === n.version &&
        JSON.stringify(sorted(p.labels)) === JSON.stringify(sorted(n.labels));
      return {
        name: n.name,
        version: n.version,
        labels: n.labels,
        lastTransitionTime: same ? p.lastTransitionTime : now,
      };
    });
}

function sorted(m: Record<string, string> = {}): [string, string][] {
  return Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every expected node is there and runs the desired version. Zero nodes never converge (as upstream). */
export function nodesConverged(input: Pick<ClusterStatusInput, 'expectedNodes' | 'nodes'>): boolean {
  const nodes = input.nodes;
  return (
    nodes !== undefined && nodes.length > 0 && nodes.length === input.expectedNodes && nodes.every((n) => n.upToDate)
  );
}

/** The next status.cluster. Returns a new object; `current` is not modified. */
export function nextClusterStatus(current: ClusterStatus | undefined, input: ClusterStatusInput): ClusterStatus {
  const next: ClusterStatus = structuredClone(current ?? {});
  if (input.nodes) next.nodes = statusNodes(current?.nodes, input.nodes, input.now);
  const converged = nodesConverged(input);
  const lastVersion = next.versions?.at(-1)?.semver;
  const converge = (type: ClusterConditionType): void => {
    next.conditions = withClusterCondition(next.conditions, type, input.now);
    next.versions = withVersion(next.versions, input.desiredVersion, input.now);
  };
  switch (latestClusterCondition(next)) {
    case undefined:
      next.conditions = withClusterCondition([], 'Creating', input.now);
      break;
    case 'Creating':
      if (converged) converge('Created');
      break;
    case 'Created':
    case 'Updated':
      if (lastVersion !== undefined && lastVersion !== input.desiredVersion) {
        next.conditions = withClusterCondition(next.conditions, 'Updating', input.now);
      } else if (lastVersion === undefined && converged) {
        next.versions = withVersion(next.versions, input.desiredVersion, input.now);
      }
      break;
    case 'Updating':
      if (converged) converge('Updated');
      break;
    default:
      // Deleting/Deleted: only the delete path writes from here on.
      break;
  }
  return next;
}

/** status.cluster once deletion was requested. */
export function deletingClusterStatus(current: ClusterStatus | undefined, now: string): ClusterStatus {
  const next: ClusterStatus = structuredClone(current ?? {});
  next.conditions = withClusterCondition(next.conditions, 'Deleting', now);
  return next;
}

/** Our Ready condition: the lifecycle reached Created/Updated and every expected node is Ready. */
export function readyCondition(cluster: ClusterStatus, input: ClusterStatusInput): ConditionInput {
  const type = ConditionTypes.Ready;
  if (!input.nodes) {
    return {
      type,
      status: 'Unknown',
      reason: 'WorkloadClusterUnreachable',
      message: 'the workload API could not be read',
    };
  }
  const phase = latestClusterCondition(cluster);
  const ready = input.nodes.filter((n) => n.ready).length;
  const counts = `${ready}/${input.expectedNodes} nodes Ready`;
  if (phase !== 'Created' && phase !== 'Updated') {
    return {
      type,
      status: 'False',
      reason: phase ?? 'Creating',
      message: `cluster is ${(phase ?? 'Creating').toLowerCase()}; ${counts}`,
    };
  }
  if (input.nodes.length !== input.expectedNodes || ready !== input.expectedNodes) {
    return { type, status: 'False', reason: 'NodesNotReady', message: counts };
  }
  return { type, status: 'True', reason: 'ClusterReady', message: counts };
}

/** The SpecValid reason for a message of `specProblem()` (key.ts); tests pin both together. */
export function specProblemReason(problem: string): string {
  if (/parallel lists/.test(problem)) return 'ParallelListsMismatch';
  if (/listed twice/.test(problem)) return 'DuplicateNodeID';
  return 'InvalidSpec';
}
