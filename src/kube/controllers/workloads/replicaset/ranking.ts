// Which pods a ReplicaSet scales down first: kube's ActivePodsWithRanks ordering.
import { isPodReady } from '../../../../apimachinery/core/index.ts';
import type { WorkloadObject } from '../common.ts';
import { creationTime, phaseOf, readySince } from '../common.ts';

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function nodeOf(p: WorkloadObject): string {
  return typeof p.spec.nodeName === 'string' ? p.spec.nodeName : '';
}

function deletionCost(p: WorkloadObject): number {
  const v = p.metadata.annotations?.['controller.kubernetes.io/pod-deletion-cost'];
  const n = typeof v === 'string' ? Number.parseInt(v, 10) : 0;
  return Number.isFinite(n) ? n : 0;
}

function restarts(p: WorkloadObject): number {
  const statuses = Array.isArray(p.status.containerStatuses) ? p.status.containerStatuses : [];
  let max = 0;
  for (const s of statuses) {
    const n = (s as { restartCount?: unknown } | null)?.restartCount;
    if (typeof n === 'number' && n > max) max = n;
  }
  return max;
}

/**
 * Less-first order of ActivePodsWithRanks: unscheduled < scheduled; Pending < Unknown < Running;
 * not ready < ready; lower pod-deletion-cost first; more pods of the set on the same node first;
 * ready for less time first; more restarts first; newer first.
 */
function compare(a: WorkloadObject, b: WorkloadObject, rank: Map<WorkloadObject, number>): number {
  const na = nodeOf(a);
  const nb = nodeOf(b);
  if (na !== nb && (na === '' || nb === '')) return na === '' ? -1 : 1;
  const pa = PHASE_ORDER[phaseOf(a)] ?? 0;
  const pb = PHASE_ORDER[phaseOf(b)] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a);
  const rb = isPodReady(b);
  if (ra !== rb) return ra ? 1 : -1;
  const ca = deletionCost(a);
  const cb = deletionCost(b);
  if (ca !== cb) return ca - cb;
  const ka = rank.get(a) ?? 0;
  const kb = rank.get(b) ?? 0;
  if (ka !== kb) return kb - ka;
  if (ra && rb) {
    const ta = readySince(a) ?? 0;
    const tb = readySince(b) ?? 0;
    if (ta !== tb) return tb - ta;
  }
  const xa = restarts(a);
  const xb = restarts(b);
  if (xa !== xb) return xb - xa;
  return creationTime(b) - creationTime(a);
}

/** The `count` pods to delete first among `active`. */
export function podsToDelete(active: WorkloadObject[], count: number): WorkloadObject[] {
  const perNode = new Map<string, number>();
  for (const p of active) perNode.set(nodeOf(p), (perNode.get(nodeOf(p)) ?? 0) + 1);
  const rank = new Map(active.map((p) => [p, nodeOf(p) ? (perNode.get(nodeOf(p)) ?? 0) : 0]));
  return [...active].sort((a, b) => compare(a, b, rank)).slice(0, count);
}
