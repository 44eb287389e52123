// cleanupendpointips (deleter, spec §6): sweeps IPs out of the `master` and `worker` Endpoints that
// no longer belong to a live, ready node. The Services have no selector, so nothing else ever
// removes an IP whose pod vanished without its delete path running (upstream #134, #828).
//
// It acts only when both views of the cluster agree: as many node pods in the management cluster
// as Nodes in the workload cluster, with the same names. Any disagreement (a VM booting, a node
// being replaced) means one view is behind, and an IP judged stale then may just be new.
// Upstream sorted the nodes by comparing pod names, so the name comparison could fail spuriously;
// here both lists are sorted by their own names.
//
// Pods being deleted are kept in both the count and the ready set: their IPs belong to the
// drainer's endpoint handler, which removes a master's IP only once its VM has stopped.
import { isPodReady } from '../../../apimachinery/core/index.ts';
import { Endpoints, isConflict, isNotFound } from '../../../runtime/index.ts';
import type { HandlerContext, KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNamespace } from '../../key.ts';
import { internalIps, listNodePods, listWorkloadNodes, nameOf } from './cluster-nodes.ts';
import type { NodePod, WorkloadNode } from './cluster-nodes.ts';

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: Record<string, unknown>;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: Record<string, unknown>[];
}

export interface EndpointsObject extends KubeObject {
  subsets?: EndpointSubset[];
}

/** The Endpoints the operator owns in every cluster namespace. */
export const SWEPT_ENDPOINTS = ['master', 'worker'] as const;

export type CleanupPlan = { skip: string } | { keep: ReadonlySet<string> };

/**
 * Which IPs may stay in `addresses`: the InternalIPs of workload nodes whose same-named node pod
 * is PodReady. `skip` when the two views of the cluster disagree, or when there is nothing to
 * compare against (no node pods: a transient empty list must not empty the Endpoints).
 */
export function endpointCleanupPlan(pods: readonly NodePod[], nodes: readonly WorkloadNode[]): CleanupPlan {
  if (pods.length === 0) return { skip: 'no node pods' };
  if (pods.length !== nodes.length) return { skip: `${pods.length} node pods but ${nodes.length} workload nodes` };
  const podNames = pods.map(nameOf).sort();
  const nodeNames = nodes.map(nameOf).sort();
  const differ = podNames.findIndex((n, i) => n !== nodeNames[i]);
  if (differ >= 0) return { skip: `node pod ${podNames[differ]} does not match workload node ${nodeNames[differ]}` };
  const ready = new Set(pods.filter(isPodReady).map(nameOf));
  const keep = new Set(nodes.filter((n) => ready.has(nameOf(n))).flatMap(internalIps));
  return { keep };
}

/**
 * The Endpoints without the `addresses` outside `keep`. notReadyAddresses are left alone; a subset
 * left with no address of either kind is dropped. `removed` lists the IPs taken out, in order.
 */
export function withoutStaleAddresses(
  endpoints: EndpointsObject,
  keep: ReadonlySet<string>,
): { endpoints: EndpointsObject; removed: string[] } {
  const removed: string[] = [];
  const subsets: EndpointSubset[] = [];
  for (const subset of endpoints.subsets ?? []) {
    const addresses = (subset.addresses ?? []).filter((a) => {
      if (keep.has(a.ip)) return true;
      removed.push(a.ip);
      return false;
    });
    if (addresses.length === 0 && (subset.notReadyAddresses ?? []).length === 0) continue;
    const next: EndpointSubset = { ...subset, addresses };
    if (addresses.length === 0) delete next.addresses;
    subsets.push(next);
  }
  if (removed.length === 0) return { endpoints, removed };
  return { endpoints: { ...endpoints, subsets }, removed };
}

export function cleanupEndpointIpsHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'cleanupendpointips',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const nodes = await listWorkloadNodes(deps, c, ctx);
      if (!nodes) return;
      const pods = await listNodePods(deps, c, ctx.signal);
      const plan = endpointCleanupPlan(pods, nodes);
      if ('skip' in plan) {
        ctx.log.debug({ reason: plan.skip }, 'endpoint cleanup skipped');
        return;
      }
      const ns = clusterNamespace(c);
      for (const name of SWEPT_ENDPOINTS) {
        let current: EndpointsObject;
        try {
          current = await deps.client.get<EndpointsObject>(Endpoints, name, ns, { signal: ctx.signal });
        } catch (e) {
          if (isNotFound(e)) continue;
          throw e;
        }
        const { endpoints, removed } = withoutStaleAddresses(current, plan.keep);
        if (removed.length === 0) continue;
        try {
          // `current` carries its resourceVersion: a concurrent write (the drainer adding an IP)
          // makes this one fail instead of being overwritten.
          await deps.client.update(Endpoints, endpoints, { signal: ctx.signal });
        } catch (e) {
          if (!isConflict(e) && !isNotFound(e)) throw e;
          ctx.log.info({ endpoints: name }, 'endpoints changed while cleaning; retrying soon');
          ctx.requeueAfter(deps.options.recheckMs);
          continue;
        }
        for (const ip of removed) {
          deps.events.normal(c, 'StaleEndpointRemoved', `Removed stale IP ${ip} from Endpoints ${ns}/${name}`);
        }
        ctx.log.info({ endpoints: name, removed }, 'removed stale endpoint IPs');
      }
    },
    async ensureDeleted(): Promise<void> {},
  };
}
