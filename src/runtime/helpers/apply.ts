// Server-side apply: send the whole intent, let the server merge it and track field ownership.
// Controllers force ownership (as controller-runtime recommends): they are the source of truth
// for the fields they set.
import type { KubeObject, ResourceType } from '../client/types.ts';
import type { HelperClient } from './client.ts';

export interface ApplyOptions {
  /** Required by the server; name it after the controller. */
  fieldManager: string;
  /** Take over fields another manager owns instead of failing with 409. Default true. */
  force?: boolean;
  /** Keep `metadata.resourceVersion` in the body, making the apply fail if the object changed. Default false. */
  optimisticLock?: boolean;
  signal?: AbortSignal;
}

/** The apply body: the intent without the server-owned bookkeeping SSA rejects or misreads. */
function applyBody<T extends KubeObject>(obj: T, opts: ApplyOptions): T {
  const {
    managedFields: _mf,
    resourceVersion,
    creationTimestamp: _ct,
    uid: _uid,
    generation: _g,
    ...meta
  } = obj.metadata;
  return {
    ...obj,
    metadata: { ...meta, ...(opts.optimisticLock && resourceVersion ? { resourceVersion } : {}) },
  };
}

/** Server-side applies `obj` (its main resource; any `status` in it is ignored by the server). */
export function serverSideApply<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  opts: ApplyOptions,
): Promise<T> {
  return client.patch<T>(type, obj.metadata.name as string, obj.metadata.namespace, applyBody(obj, opts), 'apply', {
    fieldManager: opts.fieldManager,
    force: opts.force ?? true,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

/** Server-side applies the `status` of `obj` to the status subresource. */
export function serverSideApplyStatus<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  opts: ApplyOptions,
): Promise<T> {
  return client.patch<T>(type, obj.metadata.name as string, obj.metadata.namespace, applyBody(obj, opts), 'apply', {
    fieldManager: opts.fieldManager,
    force: opts.force ?? true,
    subresource: 'status',
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}
