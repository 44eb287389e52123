// Writing status through the status subresource as a merge patch of what changed, so the write
// neither needs the latest resourceVersion nor clobbers fields other writers own.
import type { KubeObject, ResourceType } from '../client/types.ts';
import { mergePatchDiff } from '../util/json.ts';
import type { HelperClient } from './client.ts';
import { cloneJson } from '../../apimachinery/json/index.ts';

export interface StatusPatchOptions {
  /**
   * Send `metadata.resourceVersion` too, so the write fails with 409 Conflict if the object changed
   * since `obj` was read. Default false (a status computed from an old spec is still corrected by
   * the next reconcile).
   */
  optimisticLock?: boolean;
  fieldManager?: string;
  signal?: AbortSignal;
}

/**
 * Patches `/status` from `before.status` to `after.status`. Returns the written object, or undefined
 * when the statuses are equal (nothing is sent).
 */
export async function patchStatusFrom<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  before: T,
  after: T,
  opts: StatusPatchOptions = {},
): Promise<T | undefined> {
  const diff = mergePatchDiff(before.status ?? {}, after.status ?? {});
  if (diff === undefined) return undefined;
  const patch: Record<string, unknown> = { status: diff };
  if (opts.optimisticLock && before.metadata.resourceVersion) {
    patch.metadata = { resourceVersion: before.metadata.resourceVersion };
  }
  return client.patch<T>(type, before.metadata.name as string, before.metadata.namespace, patch, 'merge', {
    subresource: 'status',
    ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

/**
 * Applies `mutate` to a copy of `obj` and patches the status change, if any. Returns the written
 * object and whether a write happened (`obj` itself when not).
 */
export async function patchStatus<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  mutate: (draft: T) => void | Promise<void>,
  opts: StatusPatchOptions = {},
): Promise<{ object: T; changed: boolean }> {
  const draft = cloneJson(obj);
  await mutate(draft);
  const written = await patchStatusFrom(client, type, obj, draft, opts);
  return written ? { object: written, changed: true } : { object: obj, changed: false };
}
