// The object form of the reconciler contract. Instead of a request, the reconciler is handed the
// object of the controller's `for()` kind as the informer the builder registered holds it (so the
// scope given to `for()` is the only one), or, once the object left that cache, a "gone" signal
// with the request and the object's last state as the controller saw it deleted. It is adapted to
// a request-form Reconciler and runs in the same Controller: metrics, logs, requeueAfter, backoff
// and TerminalError behave exactly as in the request form.
//
// Tombstones (the last states) are kept only when there is a `reconcileGone`, at most
// `maxTombstones`, and each is dropped once its gone reconcile ends without asking to come back
// (success, or a TerminalError: nothing would retry it), or when the object is back in the cache.
import type { KubeObject } from '../client/types.ts';
import { TerminalError, requestKey } from './reconciler.ts';
import type { ReconcileContext, ReconcileResult, Reconciler, Request } from './reconciler.ts';
import type { ControllerInformer } from './source.ts';
import { Tombstones } from './tombstones.ts';

/** The object of a request is no longer in the controller's cache: deleted, or out of its scope. */
export interface Gone<T extends KubeObject> {
  request: Request;
  /**
   * Its state in the delete event this controller saw. Absent when it saw none: deleted while the
   * controller was not running, a key from `owns()`/`watches()` naming no such object, or a record
   * evicted past `maxTombstones`.
   */
  lastKnown?: T;
}

export type ObjectReconcileFunc<T extends KubeObject> = (
  obj: T,
  ctx: ReconcileContext,
) => Promise<ReconcileResult | void>;

export type GoneReconcileFunc<T extends KubeObject> = (
  gone: Gone<T>,
  ctx: ReconcileContext,
) => Promise<ReconcileResult | void>;

export interface ObjectReconciler<T extends KubeObject> {
  /** The object as cached, shared with every other reader of the cache: copy it before editing. */
  reconcileObject: ObjectReconcileFunc<T>;
  /** The object is gone. Default: nothing to do (and no tombstones are kept). */
  reconcileGone?: GoneReconcileFunc<T>;
}

export interface ObjectReconcilerOptions {
  /** Last states of deleted objects kept for `reconcileGone`, the oldest dropped first. Default 1000. */
  maxTombstones?: number;
}

/** What the object form reads: the informer of the `for()` kind. */
export type ObjectSource<T extends KubeObject> = Pick<ControllerInformer<T>, 'addHandler' | 'get'>;

function keyOf(obj: KubeObject): string {
  return requestKey({ namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' });
}

/** Adapts an object-form reconciler to the request form, reading objects from `source`. */
export function objectReconciler<T extends KubeObject>(
  source: ObjectSource<T>,
  reconciler: ObjectReconciler<T> | ObjectReconcileFunc<T>,
  opts: ObjectReconcilerOptions = {},
): Reconciler {
  const r: ObjectReconciler<T> = typeof reconciler === 'function' ? { reconcileObject: reconciler } : reconciler;
  if (!r.reconcileGone) {
    return {
      reconcile: async (req, ctx) => {
        const obj = source.get(req.namespace, req.name);
        return obj ? r.reconcileObject(obj, ctx) : undefined;
      },
    };
  }
  const tombstones = new Tombstones<T>(opts.maxTombstones ?? 1000);
  source.addHandler({
    onAdd: (obj) => tombstones.forget(keyOf(obj)),
    onDelete: (obj) => tombstones.remember(keyOf(obj), obj),
  });
  return {
    reconcile: async (req, ctx) => {
      const key = requestKey(req);
      const obj = source.get(req.namespace, req.name);
      if (obj) {
        tombstones.forget(key);
        return r.reconcileObject(obj, ctx);
      }
      const lastKnown = tombstones.get(key);
      let result: ReconcileResult | void;
      try {
        result = await r.reconcileGone!({ request: req, ...(lastKnown ? { lastKnown } : {}) }, ctx);
      } catch (err) {
        if (err instanceof TerminalError) tombstones.forgetSeen(key, lastKnown);
        throw err;
      }
      const comesBack = (result?.requeueAfter ?? 0) > 0;
      if (!comesBack) tombstones.forgetSeen(key, lastKnown);
      return result;
    },
  };
}
