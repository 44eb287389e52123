// A deletion that cannot complete at once: how long a pod's grace period is, and the
// deletionTimestamp, finalizers and namespace phase that mark the object as being deleted.
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import { cloneJson } from '../../../apimachinery/json/index.ts';
import type { ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { meta, ordered } from './objects.ts';
import type { DeleteOptions } from './types.ts';

/** A pod's grace period when its spec sets none. */
const DEFAULT_TERMINATION_GRACE_SECONDS = 30;

/**
 * Pods bound to a node that exists and whose kubelet will finish the deletion get a grace
 * period; everything else goes at once. A pod on a node that does not exist would otherwise
 * wait forever (kube-controller-manager's pod GC force-deletes those).
 */
export function gracePeriodFor(
  store: StoreContext,
  def: ResourceDef,
  current: JsonObject,
  options: DeleteOptions,
): number {
  if (!(def.builtin && def.kind === 'Pod')) return 0;
  const spec = (current.spec ?? {}) as JsonObject;
  const status = (current.status ?? {}) as JsonObject;
  const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
  if (!nodeName || status.phase === 'Succeeded' || status.phase === 'Failed') return 0;
  if (!store.storage.get(`/core/nodes/${nodeName}`)) return 0;
  const requested = options.gracePeriodSeconds ?? meta(current).deletionGracePeriodSeconds;
  const fromSpec =
    typeof spec.terminationGracePeriodSeconds === 'number'
      ? spec.terminationGracePeriodSeconds
      : DEFAULT_TERMINATION_GRACE_SECONDS;
  const grace = typeof requested === 'number' ? requested : fromSpec;
  return Math.max(0, Math.floor(grace));
}

/** A copy of `current` marked as being deleted. */
export function markDeletionPending(
  def: ResourceDef,
  current: JsonObject,
  finalizers: string[],
  graceSeconds: number,
  now: Date,
): JsonObject {
  const next = cloneJson(current);
  const nm = meta(next);
  stampDeletionTimestamp(nm, graceSeconds, now);
  if (finalizers.length > 0) nm.finalizers = finalizers;
  else delete nm.finalizers;
  if (def.builtin && def.kind === 'Namespace') {
    next.status = { ...((next.status as JsonObject) ?? {}), phase: 'Terminating' };
  }
  return ordered(def, next);
}

/**
 * Stamps deletionTimestamp once. A graceful deletion may only be shortened, counted from when it
 * began (rest.BeforeDelete); one without grace moves to now at most.
 */
function stampDeletionTimestamp(nm: ObjectMeta, graceSeconds: number, now: Date): void {
  const deadline = new Date(now.getTime() + graceSeconds * 1000);
  const existing = typeof nm.deletionTimestamp === 'string' ? Date.parse(nm.deletionTimestamp) : undefined;
  const existingGrace = typeof nm.deletionGracePeriodSeconds === 'number' ? nm.deletionGracePeriodSeconds : 0;
  if (existing !== undefined && existingGrace > 0) {
    if (graceSeconds < existingGrace) {
      nm.deletionTimestamp = formatTime(new Date(existing - (existingGrace - graceSeconds) * 1000));
      nm.deletionGracePeriodSeconds = graceSeconds;
    }
  } else if (existing === undefined || deadline.getTime() < existing) {
    nm.deletionTimestamp = formatTime(deadline);
    nm.deletionGracePeriodSeconds = graceSeconds;
    if (existing === undefined && typeof nm.generation === 'number' && nm.generation > 0) nm.generation += 1;
  }
}
