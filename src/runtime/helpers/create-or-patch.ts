// controller-runtime's CreateOrPatch: read the live object, let `mutate` set the desired fields,
// and write only the difference, and only when there is one. Reconciles that run often (every
// resync, every owned-object event) therefore cost one GET, not a write and a watch event each.
import { isNotFound, retryOnConflict } from '../client/errors.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { mergePatchDiff } from '../util/json.ts';
import type { HelperClient } from './client.ts';
import { cloneJson, deepEqual } from '../../apimachinery/json/index.ts';

/** What createOrPatch did, with controller-runtime's values. */
export type OperationResult = 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly' | 'unchanged';

export interface CreateOrPatchOptions {
  /** Re-read and re-mutate on 409 Conflict this many times in all. Default 5. */
  attempts?: number;
  /** Guard the main patch with the resourceVersion read (no lost updates to lists). Default true. */
  optimisticLock?: boolean;
  signal?: AbortSignal;
}

function withoutStatus(o: KubeObject): KubeObject {
  const { status: _status, ...rest } = o;
  return rest as KubeObject;
}

/**
 * Creates `obj` (after `mutate`) when it does not exist; otherwise applies `mutate` to the live copy
 * and patches the main resource and the status subresource only where they changed. `obj` needs
 * `metadata.name` (and namespace); `mutate` must not change them.
 */
export async function createOrPatch<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  obj: T,
  mutate: (draft: T) => void | Promise<void>,
  opts: CreateOrPatchOptions = {},
): Promise<{ result: OperationResult; object: T }> {
  const name = obj.metadata.name;
  const ns = obj.metadata.namespace;
  if (!name) throw new TypeError('createOrPatch: obj.metadata.name is required');
  const sig = opts.signal ? { signal: opts.signal } : {};
  return retryOnConflict(
    async () => {
      let live: T;
      try {
        live = await client.get<T>(type, name, ns, sig);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        const draft = cloneJson(obj);
        await mutate(draft);
        checkIdentity(draft, name, ns);
        let created = await client.create<T>(type, draft, sig);
        // With a status subresource the server drops status on create; write it separately.
        const statusDiff = mergePatchDiff(created.status ?? {}, draft.status ?? {});
        if (draft.status !== undefined && statusDiff !== undefined) {
          try {
            created = await client.patch<T>(type, name, ns, { status: statusDiff }, 'merge', {
              ...sig,
              subresource: 'status',
            });
          } catch (e) {
            // No status subresource: status went with the create already as far as it can.
            if (!isNotFound(e)) throw e;
          }
        }
        return { result: 'created' as const, object: created };
      }
      const draft = cloneJson(live);
      await mutate(draft);
      checkIdentity(draft, name, ns);
      const before = withoutStatus(live);
      const after = withoutStatus(draft);
      let object = live;
      let mainChanged = false;
      const mainDiff = mergePatchDiff(before, after) as Record<string, unknown> | undefined;
      if (mainDiff !== undefined) {
        if (opts.optimisticLock ?? true) {
          mainDiff.metadata = {
            ...(mainDiff.metadata as object | undefined),
            resourceVersion: live.metadata.resourceVersion,
          };
        }
        object = await client.patch<T>(type, name, ns, mainDiff, 'merge', sig);
        mainChanged = true;
      }
      let statusChanged = false;
      if (!deepEqual(live.status, draft.status)) {
        const statusDiff = mergePatchDiff(live.status ?? {}, draft.status ?? {});
        if (statusDiff !== undefined) {
          object = await client.patch<T>(type, name, ns, { status: statusDiff }, 'merge', {
            ...sig,
            subresource: 'status',
          });
          statusChanged = true;
        }
      }
      const result: OperationResult = mainChanged
        ? statusChanged
          ? 'updatedStatus'
          : 'updated'
        : statusChanged
          ? 'updatedStatusOnly'
          : 'unchanged';
      return { result, object };
    },
    { attempts: opts.attempts ?? 5, ...sig },
  );
}

function checkIdentity(draft: KubeObject, name: string, ns: string | undefined): void {
  if (draft.metadata.name !== name || draft.metadata.namespace !== ns) {
    throw new TypeError('createOrPatch: mutate must not change metadata.name or metadata.namespace');
  }
}
