// A reconcile guarded by a finalizer, after kube-rs's `kube::runtime::finalizer`: the finalizer
// holds the object in the API until what it stands for has been cleaned up. The contract, for an
// object `obj` of `type` and our finalizer `name`:
//
//   live, without our finalizer     → add it (a guarded JSON patch) and stop. Nothing is done before
//                                     it is on, or a deletion racing this reconcile could leave behind
//                                     what no cleanup ever sees; the write's own event brings the
//                                     object back for the next reconcile.
//   live, with our finalizer        → `apply(obj)`; its result is the reconcile's result.
//   being deleted, with ours        → `cleanup(obj)`; then our finalizer is removed (a guarded patch:
//                                     others' finalizers are never touched), unless cleanup returned
//                                     `keepFinalizer` (something is still draining: its requeueAfter
//                                     brings us back).
//   being deleted, without ours     → nothing: our cleanup already ran, or never had anything to do.
//
// An error from apply, cleanup or a finalizer write propagates, so the controller retries with
// backoff; after a failed cleanup the finalizer stays, and cleanup runs again on the retry. Both
// handlers must therefore be idempotent. `obj` is never modified.
import type { KubeObject, ResourceType } from '../client/types.ts';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../helpers/finalizers.ts';
import type { HelperClient } from '../helpers/client.ts';
import type { ReconcileResult } from './reconciler.ts';

export interface FinalizerSpec {
  client: HelperClient;
  type: ResourceType;
  /** The finalizer this reconcile owns, e.g. `example.com/cleanup`. */
  name: string;
  /** Passed to the finalizer writes (usually the reconcile's signal). */
  signal?: AbortSignal;
}

/** What cleanup returns: nothing when done, or `keepFinalizer` to hold the object a while longer. */
export interface CleanupResult extends ReconcileResult {
  keepFinalizer?: boolean;
}

export interface FinalizerHandlers<T extends KubeObject> {
  /** The object is live and carries our finalizer: bring the world in line with it. */
  apply(obj: T): Promise<ReconcileResult | void>;
  /** The object is being deleted and still carries our finalizer: release what it guards. */
  cleanup(obj: T): Promise<CleanupResult | void>;
}

/** Runs `handlers` on `obj` under the finalizer protocol above; returns the reconcile's result. */
export async function finalizer<T extends KubeObject>(
  spec: FinalizerSpec,
  obj: T,
  handlers: FinalizerHandlers<T>,
): Promise<ReconcileResult | void> {
  const writeOpts = spec.signal ? { signal: spec.signal } : {};
  const ours = hasFinalizer(obj, spec.name);
  if (obj.metadata.deletionTimestamp) {
    if (!ours) return;
    const { keepFinalizer, ...result } = (await handlers.cleanup(obj)) ?? {};
    if (!keepFinalizer) await removeFinalizer(spec.client, spec.type, obj, spec.name, writeOpts);
    return result.requeueAfter !== undefined ? result : undefined;
  }
  if (!ours) {
    await addFinalizer(spec.client, spec.type, obj, spec.name, writeOpts);
    return;
  }
  return handlers.apply(obj);
}
