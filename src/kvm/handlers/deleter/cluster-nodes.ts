// The two views of a workload cluster's nodes that the deleter and the unhealthy-node terminator
// join: the node pods in the management cluster (one per VM) and the Node objects in the workload
// cluster. A VM's hostname is its pod's name, so the two join on name (spec §4, "Node naming").
import { Nodes, Pods } from '../../../runtime/index.ts';
import type { HandlerContext, KubeObject } from '../../../runtime/index.ts';
import { Labels, POD_WATCHER } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterId, clusterNamespace } from '../../key.ts';
import { isWorkloadUnavailable } from '../../workload/index.ts';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

export interface NodePod extends KubeObject {
  status?: { phase?: string; conditions?: Condition[] };
}

export interface WorkloadNode extends KubeObject {
  status?: { conditions?: Condition[]; addresses?: { type: string; address: string }[] };
}

export function nameOf(o: KubeObject): string {
  return o.metadata.name ?? '';
}

/**
 * Node pods are selected by cluster and pod-watcher label only, not by operator version: during an
 * operator upgrade the pods of the previous version still back live workload nodes, and treating
 * them as missing would make the deleter remove their nodes.
 */
export function nodePodSelector(c: KVMConfig): string {
  return `${Labels.cluster}=${clusterId(c)},${Labels.podWatcher}=${POD_WATCHER}`;
}

/** Every node pod of the cluster, including those being deleted (each caller decides about them). */
export async function listNodePods(deps: KvmDeps, c: KVMConfig, signal?: AbortSignal): Promise<NodePod[]> {
  const res = await deps.client.list<NodePod>(Pods, {
    namespace: clusterNamespace(c),
    labelSelector: nodePodSelector(c),
    signal,
  });
  return res.items;
}

/**
 * The workload cluster's Nodes, or undefined when its API cannot be reached right now (logged;
 * the caller then does nothing: these handlers run again at the next resync).
 */
export async function listWorkloadNodes(
  deps: KvmDeps,
  c: KVMConfig,
  ctx: HandlerContext,
): Promise<WorkloadNode[] | undefined> {
  try {
    const wc = deps.workload.clientFor(c);
    return (await wc.list<WorkloadNode>(Nodes, { signal: ctx.signal })).items;
  } catch (e) {
    if (!isWorkloadUnavailable(e)) throw e;
    ctx.log.info({ err: e }, 'workload cluster unavailable; nothing to do until it is back');
    return undefined;
  }
}

export function isBeingDeleted(o: KubeObject): boolean {
  return o.metadata.deletionTimestamp !== undefined;
}

export function nodeReadyCondition(node: WorkloadNode): Condition | undefined {
  return (node.status?.conditions ?? []).find((c) => c.type === 'Ready');
}

export function internalIps(node: WorkloadNode): string[] {
  return (node.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
}
