// Finalizers, added and removed one at a time and only our own. Writes are JSON patches guarded by
// a `test` of the resourceVersion (and of the finalizer's position), so a stale copy can never drop
// or reorder somebody else's finalizer: the server refuses the patch and we re-read and retry.
import { isConflict, isInvalid, isNotFound } from '../client/errors.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import type { HelperClient } from './client.ts';

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/** In-memory: adds `finalizer` to `obj` if missing; true when it changed `obj`. */
export function addFinalizerTo(obj: KubeObject, finalizer: string): boolean {
  if (hasFinalizer(obj, finalizer)) return false;
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return true;
}

/** In-memory: removes every occurrence of `finalizer` from `obj`; true when it changed `obj`. */
export function removeFinalizerFrom(obj: KubeObject, finalizer: string): boolean {
  if (!hasFinalizer(obj, finalizer)) return false;
  obj.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  return true;
}

export interface FinalizerWriteOptions {
  /** Re-read-and-retry rounds when the object changed under us. Default 5. */
  attempts?: number;
  signal?: AbortSignal;
}

/**
 * Adds `finalizer` on the server (no write when `obj` already has it). Returns the object as written
 * (or `obj` itself when nothing was written).
 */
export async function addFinalizer<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  finalizer: string,
  opts: FinalizerWriteOptions = {},
): Promise<T> {
  return guardedPatch(client, type, obj, opts, (cur) => {
    if (hasFinalizer(cur, finalizer)) return undefined;
    const list = cur.metadata.finalizers;
    return list && list.length > 0
      ? [{ op: 'add', path: '/metadata/finalizers/-', value: finalizer }]
      : [{ op: 'add', path: '/metadata/finalizers', value: [finalizer] }];
  });
}

/**
 * Removes `finalizer` on the server (no write when `obj` lacks it). Returns the object as written;
 * when the removal let the server delete the object, or it was already gone, returns `obj` as given.
 */
export async function removeFinalizer<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  finalizer: string,
  opts: FinalizerWriteOptions = {},
): Promise<T> {
  return guardedPatch(client, type, obj, opts, (cur) => {
    const list = cur.metadata.finalizers ?? [];
    const ops: unknown[] = [];
    // Remove from the end so earlier indexes stay valid; each index is tested first.
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i] !== finalizer) continue;
      ops.push({ op: 'test', path: `/metadata/finalizers/${i}`, value: finalizer });
      ops.push({ op: 'remove', path: `/metadata/finalizers/${i}` });
    }
    return ops.length > 0 ? ops : undefined;
  });
}

async function guardedPatch<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  opts: FinalizerWriteOptions,
  build: (cur: T) => unknown[] | undefined,
): Promise<T> {
  const name = obj.metadata.name as string;
  const ns = obj.metadata.namespace;
  const attempts = opts.attempts ?? 5;
  let cur = obj;
  for (let attempt = 1; ; attempt++) {
    const ops = build(cur);
    if (!ops) return cur;
    const rv = cur.metadata.resourceVersion;
    const patch = rv ? [{ op: 'test', path: '/metadata/resourceVersion', value: rv }, ...ops] : ops;
    try {
      return await client.patch<T>(type, name, ns, patch, 'json', { ...(opts.signal ? { signal: opts.signal } : {}) });
    } catch (err) {
      if (isNotFound(err)) return obj;
      // A failed `test` is 422 Invalid; some servers answer a stale write with 409.
      if (!(isInvalid(err) || isConflict(err)) || attempt >= attempts) throw err;
      let fresh: T;
      try {
        fresh = await client.get<T>(type, name, ns, { ...(opts.signal ? { signal: opts.signal } : {}) });
      } catch (e) {
        if (isNotFound(e)) return obj;
        throw e;
      }
      // Same version and still refused: the patch itself is invalid, retrying cannot help.
      if (rv && fresh.metadata.resourceVersion === rv) throw err;
      cur = fresh;
    }
  }
}
