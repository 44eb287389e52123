// Read-your-writes: after writing, a reconcile that reads the cache may still see the old object
// (controller-runtime#1464). Waiting until the informer has seen the resourceVersion our write
// returned closes that gap, as kopf's consistency_timeout does.
import type { KubeObject } from '../client/types.ts';

/** What waitForCache needs from an informer (SharedInformer fits). */
export interface ResourceVersionWaiter {
  waitForResourceVersion(rv: string, timeoutMs?: number): Promise<boolean>;
}

export class CacheTimeoutError extends Error {
  constructor(obj: KubeObject, timeoutMs: number | undefined) {
    super(
      `the cache did not catch up with ${obj.kind ?? 'object'} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name ?? ''} at resourceVersion ${obj.metadata.resourceVersion ?? '?'}${timeoutMs !== undefined ? ` within ${timeoutMs} ms` : ''}`,
    );
    this.name = 'CacheTimeoutError';
  }
}

/**
 * Resolves once `informer` has caught up with `written` (the object a write returned). Rejects with
 * {@link CacheTimeoutError} after `timeoutMs` (default: the informer's own, 10 s), so a reconcile
 * fails and retries rather than acting on stale data. Pass `{ throwOnTimeout: false }` to get a
 * boolean instead.
 */
export async function waitForCache(
  informer: ResourceVersionWaiter,
  written: KubeObject,
  opts: { timeoutMs?: number; throwOnTimeout?: boolean } = {},
): Promise<boolean> {
  const rv = written.metadata.resourceVersion;
  if (!rv) return true;
  const ok = await informer.waitForResourceVersion(rv, opts.timeoutMs);
  if (!ok && (opts.throwOnTimeout ?? true)) throw new CacheTimeoutError(written, opts.timeoutMs);
  return ok;
}
