// One pass of draining a workload-cluster node for a DrainerConfig (upstream node-operator's
// drainer resource): time out, or cordon the node and evict its pods, user workloads first and
// kube-system once they are gone. Each pass is idempotent and reads everything afresh, so the
// caller just runs it again (about every second) until it reports the drain finished; it never
// touches the management cluster: the caller writes the status it returns.
import { isPodTerminal } from '../../apimachinery/core/index.ts';
import { formatTime } from '../../apimachinery/time/index.ts';
import {
  Nodes,
  Pods,
  isNotFound,
  isTooManyRequests,
  type KubeClient,
  type KubeObject,
  type Logger,
} from '../../runtime/index.ts';
import { DrainerConditions, drainFinished, type DrainerConfig, type DrainerConfigStatus } from '../api/index.ts';
import { Annotations } from '../api/labels.ts';
import { isDeleting, type Pod } from '../pods.ts';

/** How often a drain in progress is looked at again. */
export const DRAIN_PASS_INTERVAL_MS = 1_000;

export type WorkloadClient = Pick<KubeClient, 'get' | 'list' | 'patch' | 'request'>;

type DrainerCondition = NonNullable<DrainerConfigStatus['conditions']>[number];

export interface DrainPass {
  /** The DrainerConfig's status after this pass. */
  status: DrainerConfigStatus;
  /** True when `status` differs from the stored one in more than heartbeats: write it. */
  changed: boolean;
  /** Drained or Timeout is True: stop coming back. */
  finished: boolean;
  /** When to run the next pass; undefined once finished. */
  requeueAfterMs?: number;
  /** Pods whose eviction was accepted in this pass, and those a disruption budget held back. */
  evicted: string[];
  blocked: string[];
}

export interface DrainNodeArgs {
  dc: DrainerConfig;
  wc: WorkloadClient;
  now: number;
  timeoutMs: number;
  log: Logger;
  passIntervalMs?: number;
  signal?: AbortSignal;
}

/** metav1 semantics: the transition time moves only when the status flips; the heartbeat always. */
export function withCondition(
  status: DrainerConfigStatus | undefined,
  input: { type: string; reason: string; message: string },
  now: number,
): DrainerConfigStatus {
  const conditions = (status?.conditions ?? []).filter((c) => c.type !== input.type);
  const old = status?.conditions?.find((c) => c.type === input.type);
  const at = formatTime(now);
  const cond: DrainerCondition = {
    type: input.type,
    status: 'True',
    lastHeartbeatTime: at,
    lastTransitionTime: old?.status === 'True' && old.lastTransitionTime ? old.lastTransitionTime : at,
    reason: input.reason,
    message: input.message,
  };
  return { ...status, conditions: [...conditions, cond] };
}

/** Everything but heartbeats, for deciding whether a status is worth writing. */
function statusKey(status: DrainerConfigStatus | undefined): string {
  const conds = (status?.conditions ?? [])
    .map((c) => ({ ...c, lastHeartbeatTime: undefined }))
    .sort((a, b) => a.type.localeCompare(b.type));
  return JSON.stringify([conds, status?.evictedPods ?? 0, status?.remainingPods ?? 0]);
}

export function drainDeadline(dc: DrainerConfig, timeoutMs: number): number {
  const created = Date.parse(dc.metadata.creationTimestamp ?? '');
  return (Number.isNaN(created) ? 0 : created) + timeoutMs;
}

function pass(
  dc: DrainerConfig,
  status: DrainerConfigStatus,
  finished: boolean,
  extra: Partial<DrainPass> = {},
): DrainPass {
  return {
    status,
    changed: statusKey(status) !== statusKey(dc.status),
    finished,
    evicted: [],
    blocked: [],
    ...extra,
  };
}

/** The Timeout pass, when the drain ran out of time (also used when the workload API is unreachable). */
export function timeoutPass(dc: DrainerConfig, now: number, timeoutMs: number): DrainPass | undefined {
  if (now < drainDeadline(dc, timeoutMs)) return undefined;
  const left = dc.status?.remainingPods;
  const message = `the node was not drained within ${Math.round(timeoutMs / 1000)}s${left ? `; ${left} pod(s) left` : ''}`;
  return pass(
    dc,
    withCondition(dc.status, { type: DrainerConditions.Timeout, reason: 'DrainTimeout', message }, now),
    true,
  );
}

const isMirrorPod = (p: Pod): boolean => p.metadata.annotations?.[Annotations.configMirror] !== undefined;
const isDaemonSetPod = (p: Pod): boolean =>
  (p.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.kind === 'DaemonSet');
const isSystem = (p: Pod): boolean => p.metadata.namespace === 'kube-system';

export interface EvictionPlan {
  /** Evict these now. */
  evict: Pod[];
  /** Still on the node but not evicted this pass: terminating, or kube-system waiting its turn. */
  waiting: Pod[];
}

/**
 * Which pods must leave the node, and which to evict in this pass. Static (mirror) pods and
 * DaemonSet pods are left alone, as `kubectl drain` does: their controllers bring them right back.
 * Finished pods hold nothing. Pods already terminating are not evicted again but still wait for.
 * kube-system pods go only once every other pod has left (DNS, CNI... serve the leaving workloads).
 */
export function evictionPlan(pods: readonly Pod[]): EvictionPlan {
  const leaving = pods.filter((p) => !isMirrorPod(p) && !isDaemonSetPod(p) && !isPodTerminal(p));
  const userLeft = leaving.some((p) => !isSystem(p));
  const evict = leaving.filter((p) => !isDeleting(p) && isSystem(p) !== userLeft);
  return { evict, waiting: leaving.filter((p) => !evict.includes(p)) };
}

export type EvictionResult = 'evicted' | 'gone' | 'blocked';

/** POSTs a policy/v1 Eviction: 404 means the pod is gone, 429 that a disruption budget forbids it now. */
export async function evictPod(wc: WorkloadClient, pod: KubeObject, signal?: AbortSignal): Promise<EvictionResult> {
  const name = pod.metadata.name as string;
  const namespace = pod.metadata.namespace as string;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/eviction`;
  try {
    const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } };
    await wc.request('POST', path, body, {}, signal ? { signal } : {});
    return 'evicted';
  } catch (e) {
    if (isNotFound(e)) return 'gone';
    if (isTooManyRequests(e)) return 'blocked';
    throw e;
  }
}

/** One drain pass. Throws on workload API errors; the caller tells unreachable from real ones. */
export async function drainNode(args: DrainNodeArgs): Promise<DrainPass> {
  const { dc, wc, now, timeoutMs, log, signal } = args;
  if (drainFinished(dc)) return pass(dc, dc.status ?? {}, true);
  const timedOut = timeoutPass(dc, now, timeoutMs);
  if (timedOut) return timedOut;
  const nodeName = dc.spec.guest.node.name;
  const drained = (reason: string, message: string, extra: Partial<DrainerConfigStatus> = {}): DrainPass =>
    pass(
      dc,
      withCondition({ ...dc.status, ...extra }, { type: DrainerConditions.Drained, reason, message }, now),
      true,
    );
  const opts = signal ? { signal } : {};

  let node: KubeObject & { spec?: { unschedulable?: boolean } };
  try {
    node = await wc.get(Nodes, nodeName, undefined, opts);
    if (!node.spec?.unschedulable) {
      await wc.patch(Nodes, nodeName, undefined, { spec: { unschedulable: true } }, 'merge', opts);
      log.info({ node: nodeName }, 'cordoned the workload node');
    }
  } catch (e) {
    if (!isNotFound(e)) throw e;
    return drained('NodeNotFound', `node ${nodeName} does not exist (any more)`, { remainingPods: 0 });
  }

  const pods = (await wc.list<Pod>(Pods, { fieldSelector: `spec.nodeName=${nodeName}`, ...opts })).items;
  const plan = evictionPlan(pods);
  const evicted: string[] = [];
  const blocked: string[] = [];
  let gone = 0;
  for (const p of plan.evict) {
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const result = await evictPod(wc, p, signal);
    if (result === 'evicted') evicted.push(key);
    else if (result === 'blocked') blocked.push(key);
    else gone++;
  }
  if (evicted.length || blocked.length) log.info({ node: nodeName, evicted, blocked }, 'evicting pods');
  const remainingPods = plan.evict.length + plan.waiting.length - gone;
  const evictedPods = (dc.status?.evictedPods ?? 0) + evicted.length;
  if (plan.evict.length + plan.waiting.length === 0) {
    return drained('NodeDrained', `every pod left node ${nodeName}`, { evictedPods, remainingPods: 0 });
  }
  const untilDeadline = drainDeadline(dc, timeoutMs) - now;
  const requeueAfterMs = Math.max(1, Math.min(args.passIntervalMs ?? DRAIN_PASS_INTERVAL_MS, untilDeadline));
  return pass(dc, { ...dc.status, evictedPods, remainingPods }, false, { requeueAfterMs, evicted, blocked });
}
