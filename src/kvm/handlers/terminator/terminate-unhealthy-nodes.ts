// terminateunhealthynodes (spec §8): replaces the VMs of workload nodes that stayed NotReady too
// long, by deleting their node pods; the drainer's finalizer drains them first (spec §5) and the
// Deployment starts a new VM under a new name.
//
// Upstream counted NotReady resyncs in a node annotation (giantswarm.io/node-not-ready-tick, bad at
// 6 ticks ≈ 30 min at a 5 min resync); reviewers asked for a duration (#1106). Here a node is bad
// once its Ready condition has not been True for `unhealthyNodeAfterMs`, measured from that
// condition's lastTransitionTime (a node without one: from its creation), with upstream's guard
// that a kubelet still reporting False within the last 30 s is left alone. Nothing is written to
// the Nodes: tick annotations are neither written nor read.
//
// Safety, per run: at most max(1, round(10% of the workload nodes)) terminations and at most one
// master (upstream's caps). Upstream then reset every tick, which paced the next round ~30 min
// later; with durations the same nodes would be bad again at the next run, so instead node pods
// already being deleted count against both caps: at most 10% of the cluster is being replaced at
// any time. Nodes without a node pod are the deleter's business, not candidates.
import { formatDuration } from '../../../apimachinery/time/index.ts';
import { Pods, isConflict, isNotFound } from '../../../runtime/index.ts';
import type { HandlerContext, ResourceHandler } from '../../../runtime/index.ts';
import { Annotations, Labels } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import type { ResolvedKvmOptions } from '../../options.ts';
import { clusterNamespace } from '../../key.ts';
import {
  isBeingDeleted,
  listNodePods,
  listWorkloadNodes,
  nameOf,
  nodeReadyCondition,
} from '../deleter/cluster-nodes.ts';
import type { NodePod, WorkloadNode } from '../deleter/cluster-nodes.ts';

/** A kubelet that reported NotReady this recently is alive: give it time (upstream's guard). */
export const HEARTBEAT_GRACE_MS = 30_000;

export function terminationEnabled(
  c: KVMConfig,
  options: Pick<ResolvedKvmOptions, 'terminateUnhealthyNodes'>,
): boolean {
  return options.terminateUnhealthyNodes || c.metadata.annotations?.[Annotations.terminateUnhealthy] === 'true';
}

/** At most this many terminations at a time: max(1, round(10% of the nodes)), halves rounded up. */
export function terminationCap(nodeCount: number): number {
  return Math.max(1, Math.round(nodeCount / 10));
}

export function isMasterNode(node: WorkloadNode): boolean {
  const labels = node.metadata.labels ?? {};
  return labels[Labels.role] === 'master' || Labels.nodeRoleMaster in labels;
}

function time(ts: string | undefined): number | undefined {
  const t = ts === undefined ? NaN : Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * When the node became unhealthy, and when it may first be judged bad (epoch ms); undefined for a
 * Ready node.
 */
export function unhealthyWindow(node: WorkloadNode, thresholdMs: number): { since: number; badAt: number } | undefined {
  const ready = nodeReadyCondition(node);
  if (ready?.status === 'True') return undefined;
  const since = time(ready?.lastTransitionTime) ?? time(node.metadata.creationTimestamp) ?? 0;
  let badAt = since + thresholdMs;
  const heartbeat = time(ready?.lastHeartbeatTime);
  if (ready?.status === 'False' && heartbeat !== undefined) badAt = Math.max(badAt, heartbeat + HEARTBEAT_GRACE_MS);
  return { since, badAt };
}

export interface Termination {
  node: string;
  master: boolean;
  /** How long it has been NotReady. */
  notReadyMs: number;
  pod: NodePod;
}

export interface TerminationPlan {
  terminate: Termination[];
  /** Bad nodes left for a later run by the caps. */
  deferred: string[];
  /** How long until the next NotReady node turns bad; undefined when none is on its way. */
  nextInMs?: number;
}

export function planTerminations(input: {
  nodes: readonly WorkloadNode[];
  pods: readonly NodePod[];
  now: number;
  thresholdMs: number;
}): TerminationPlan {
  const { nodes, pods, now, thresholdMs } = input;
  const podByName = new Map(pods.map((p) => [nameOf(p), p]));
  const terminating = pods.filter(isBeingDeleted);
  let budget = terminationCap(nodes.length) - terminating.length;
  let masterBudget = 1 - terminating.filter((p) => p.metadata.labels?.[Labels.app] === 'master').length;
  const bad: Array<{ t: Termination; since: number }> = [];
  let nextInMs: number | undefined;
  for (const node of nodes) {
    const pod = podByName.get(nameOf(node));
    if (!pod || isBeingDeleted(pod)) continue;
    const w = unhealthyWindow(node, thresholdMs);
    if (!w) continue;
    if (w.badAt > now) {
      nextInMs = Math.min(nextInMs ?? Infinity, w.badAt - now);
      continue;
    }
    const master = isMasterNode(node) || pod.metadata.labels?.[Labels.app] === 'master';
    bad.push({ t: { node: nameOf(node), master, notReadyMs: now - w.since, pod }, since: w.since });
  }
  // Longest-unhealthy first; the name breaks ties so a run is reproducible.
  bad.sort((a, b) => a.since - b.since || a.t.node.localeCompare(b.t.node));
  const terminate: Termination[] = [];
  const deferred: string[] = [];
  for (const { t } of bad) {
    if (budget <= 0 || (t.master && masterBudget <= 0)) {
      deferred.push(t.node);
      continue;
    }
    budget--;
    if (t.master) masterBudget--;
    terminate.push(t);
  }
  return nextInMs === undefined ? { terminate, deferred } : { terminate, deferred, nextInMs };
}

export function terminateUnhealthyNodesHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'terminateunhealthynodes',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      if (!terminationEnabled(c, deps.options)) return;
      const nodes = await listWorkloadNodes(deps, c, ctx);
      if (!nodes) return;
      const pods = await listNodePods(deps, c, ctx.signal);
      const plan = planTerminations({
        nodes,
        pods,
        now: deps.options.now(),
        thresholdMs: deps.options.unhealthyNodeAfterMs,
      });
      // Come back when the next node crosses the threshold rather than up to a resync late.
      if (plan.nextInMs !== undefined)
        ctx.requeueAfter(Math.max(1_000, Math.min(plan.nextInMs, deps.options.resyncMs)));
      if (plan.deferred.length > 0)
        ctx.log.info({ nodes: plan.deferred }, 'unhealthy nodes left for a later run (caps)');
      const ns = clusterNamespace(c);
      for (const t of plan.terminate) {
        try {
          // Normal delete: the drainer's finalizer drains the node before the VM goes. The uid
          // precondition keeps a replacement that took the same name safe.
          await deps.client.delete(Pods, t.node, ns, {
            signal: ctx.signal,
            preconditions: { uid: t.pod.metadata.uid },
          });
        } catch (e) {
          if (isNotFound(e) || isConflict(e)) continue;
          throw e;
        }
        deps.events.warning(
          c,
          'UnhealthyNodeTerminated',
          `Terminated ${t.master ? 'master' : 'worker'} node ${t.node} (deleted its pod ${ns}/${t.node}): NotReady for ${formatDuration(t.notReadyMs)}`,
        );
        ctx.log.info({ node: t.node, notReadyMs: t.notReadyMs }, 'terminated unhealthy workload node');
      }
    },
    async ensureDeleted(): Promise<void> {},
  };
}
