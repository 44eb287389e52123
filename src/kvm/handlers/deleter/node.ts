// node (deleter, spec §8): removes workload-cluster Nodes whose VM is gone. A node pod's
// replacement gets a new name (Deployment pods are `<deployment>-<hash>-<suffix>`), so the old VM's
// Node stays behind, NotReady, until something deletes it: this handler.
//
// A Node is deleted only when all of these hold:
//   - it is NotReady (its Ready condition is missing or not True): a Ready node is running, whatever
//     the management cluster says;
//   - no node pod of the cluster has its name (pods being deleted count as present: their VM may
//     still run, and the drain needs the Node);
//   - its name is shaped like one of ours, `master-<nodeID>-<hash>-<suffix>` or
//     `worker-<nodeID>-<hash>-<suffix>` (the deployment `<role>-<nodeID>` plus the ReplicaSet hash
//     and pod suffix; the nodeID itself may contain dashes). Nodes someone joined by hand are left
//     alone. The nodeID is not required to be in the KVMConfig: a scaled-in node's Node must go too;
//   - the node pod list is not empty while the KVMConfig lists nodes: an empty list then means the
//     management cluster's answer is wrong or early, and acting on it would empty the cluster.
// Workload nodes are listed before node pods: a pod always exists before its VM registers a Node,
// so any Node seen already has its pod in the later list.
import { isNodeReady } from '../../../apimachinery/core/index.ts';
import { Nodes, isConflict, isNotFound } from '../../../runtime/index.ts';
import type { HandlerContext, ResourceHandler } from '../../../runtime/index.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNodes } from '../../key.ts';
import { isWorkloadUnavailable } from '../../workload/index.ts';
import { listNodePods, listWorkloadNodes, nameOf } from './cluster-nodes.ts';
import type { NodePod, WorkloadNode } from './cluster-nodes.ts';

/** `<role>-<nodeID>-<replicaset hash>-<pod suffix>`: the name of a node pod, hence of its Node. */
const NODE_POD_NAME = /^(master|worker)-[a-z0-9][-a-z0-9]*-[a-z0-9]+-[a-z0-9]+$/;

export function isNodePodName(name: string): boolean {
  return NODE_POD_NAME.test(name);
}

export interface NodeDeletionPlan {
  delete: WorkloadNode[];
  /** Why nothing at all may be deleted this time. */
  skip?: string;
}

export function workloadNodesToDelete(
  c: KVMConfig,
  pods: readonly NodePod[],
  nodes: readonly WorkloadNode[],
): NodeDeletionPlan {
  const expected = clusterNodes(c).length;
  if (pods.length === 0 && expected > 0)
    return { delete: [], skip: `no node pods listed while the KVMConfig has ${expected} nodes` };
  const podNames = new Set(pods.map(nameOf));
  return {
    delete: nodes.filter((n) => isNodePodName(nameOf(n)) && !podNames.has(nameOf(n)) && !isNodeReady(n)),
  };
}

export function workloadNodeHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'node',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const nodes = await listWorkloadNodes(deps, c, ctx);
      if (!nodes) return;
      const pods = await listNodePods(deps, c, ctx.signal);
      const plan = workloadNodesToDelete(c, pods, nodes);
      if (plan.skip) {
        ctx.log.info({ reason: plan.skip }, 'workload node deletion skipped');
        return;
      }
      for (const node of plan.delete) {
        const name = nameOf(node);
        try {
          // The preconditions make the delete fail if the Node changed since it was judged (its
          // kubelet came back and reported in): it is then left for the next run to judge again.
          await deps.workload.clientFor(c).delete(Nodes, name, undefined, {
            signal: ctx.signal,
            preconditions: { uid: node.metadata.uid, resourceVersion: node.metadata.resourceVersion },
          });
        } catch (e) {
          if (isNotFound(e)) continue;
          if (isConflict(e)) {
            ctx.log.info({ node: name }, 'workload node changed since it was listed; left for the next run');
            continue;
          }
          if (isWorkloadUnavailable(e)) {
            ctx.log.info({ err: e }, 'workload cluster unavailable; nothing to do until it is back');
            return;
          }
          throw e;
        }
        deps.events.normal(
          c,
          'WorkloadNodeDeleted',
          `Deleted workload node ${name}: NotReady and it has no node pod in the management cluster`,
        );
        ctx.log.info({ node: name }, 'deleted workload node without a node pod');
      }
    },
    async ensureDeleted(): Promise<void> {},
  };
}
