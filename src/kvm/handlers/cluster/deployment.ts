// The node Deployments (deployment-spec.ts): created when missing; the update patch deletes those
// of removed nodes (scale-in; their pods drain through the drainer first) and rolls at most one
// deployment per loop to new versions (update-throttle.ts). On delete every one of ours goes with
// Foreground propagation: the pods go while the KVMConfig is being deleted, which the drainer
// reads as "skip draining".
//
// Only deployments labelled managed-by=kvm-operator and giantswarm.io/cluster=<id> are ours: a
// foreign deployment in the namespace is never scaled in, updated or deleted (upstream #1224).
import {
  Deployments,
  Nodes,
  crudHandler,
  diffByName,
  ignoreAlreadyExists,
  ignoreNotFound,
} from '../../../runtime/index.ts';
import type { HandlerContext, ResourceHandler } from '../../../runtime/index.ts';
import { Labels } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNamespace, releaseVersionOf } from '../../key.ts';
import { isWorkloadUnavailable } from '../../workload/index.ts';
import { managedSelector } from './configmap.ts';
import { nodeDeployments } from './deployment-spec.ts';
import type { Deployment } from './deployment-types.ts';
import { clusterRelease, nodesReady } from './prerequisites.ts';
import { deploymentToUpdate, pendingUpdates } from './update-throttle.ts';
import type { WorkloadNode } from './update-throttle.ts';

/**
 * While a rollout is pending, look again this soon rather than at the next resync: nothing else
 * wakes the cluster controller when a node deployment becomes ready (our addition; upstream waited
 * a full resync per node).
 */
export const ROLLOUT_RECHECK_MS = 30_000;

/** The workload cluster's master nodes, or undefined (logged, and a Warning event) when its API is unavailable. */
async function workloadMasters(deps: KvmDeps, c: KVMConfig, ctx: HandlerContext): Promise<WorkloadNode[] | undefined> {
  try {
    const wc = deps.workload.clientFor(c);
    const nodes = await wc.list<WorkloadNode>(Nodes, {
      labelSelector: `${Labels.role}=master`,
      signal: ctx.signal,
    });
    return nodes.items;
  } catch (e) {
    if (!isWorkloadUnavailable(e)) throw e;
    const message = `node update deferred: workload cluster API unavailable: ${(e as Error).message}`;
    ctx.log.info({ err: (e as Error).message }, message);
    deps.events.warning(c, 'WorkloadClusterUnavailable', message);
    return undefined;
  }
}

export function deploymentHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return crudHandler<KVMConfig, Deployment[]>({
    name: 'deployment',
    async currentState(c, ctx) {
      const list = await deps.client.list<Deployment>(Deployments, {
        namespace: clusterNamespace(c),
        labelSelector: managedSelector(c),
        signal: ctx.signal,
      });
      return list.items;
    },
    async desiredState(c, ctx) {
      // On delete everything of ours goes; no Release is needed (it may be gone already).
      if (ctx.event === 'delete') return [];
      // A VM must not boot before its ignition exists, which needs every node's index.
      if (!nodesReady(c, ctx)) return [];
      return nodeDeployments(c, clusterRelease(deps, c), deps.options);
    },
    async updatePatch(c, current, desired, ctx) {
      const { create, delete: del } = diffByName(current, desired, () => false);
      if (pendingUpdates(current, desired).length === 0) return { create, delete: del };
      ctx.requeueAfter(ROLLOUT_RECHECK_MS);
      // The workload API is asked only when there is something to roll.
      const decision = deploymentToUpdate({ current, desired, workloadNodes: await workloadMasters(deps, c, ctx) });
      ctx.log.info({ update: decision.update?.metadata.name, reason: decision.reason }, 'node rollout');
      return { create, delete: del, update: decision.update ? [decision.update] : [] };
    },
    deletePatch: (_c, current) => ({ delete: current }),
    async applyCreate(_c, change, ctx) {
      for (const d of change) {
        await ignoreAlreadyExists(deps.client.create(Deployments, d, { signal: ctx.signal }));
        ctx.log.info({ deployment: d.metadata.name }, 'node deployment created');
      }
    },
    async applyDelete(_c, change, ctx) {
      for (const d of change) {
        if (d.metadata.deletionTimestamp) continue;
        await ignoreNotFound(
          deps.client.delete(Deployments, d.metadata.name as string, d.metadata.namespace, {
            propagationPolicy: 'Foreground',
            signal: ctx.signal,
          }),
        );
        ctx.log.info({ deployment: d.metadata.name }, 'node deployment deleted');
      }
    },
    async applyUpdate(c, change, ctx) {
      for (const d of change) {
        await deps.client.update(Deployments, d, { signal: ctx.signal });
        const message = `updating node deployment ${d.metadata.name} to release ${releaseVersionOf(c)} (operator ${deps.options.version})`;
        ctx.log.info({ deployment: d.metadata.name }, message);
        deps.events.normal(c, 'NodeUpdating', message);
      }
    },
  });
}
