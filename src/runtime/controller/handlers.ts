// Mapping an object that changed to the keys to reconcile, as controller-runtime's pkg/handler:
// the object itself (`For`), its controlling owner (`Owns`), or whatever a user function says
// (`Watches`).
import type { KubeObject, OwnerReference, ResourceType } from '../client/types.ts';
import type { Request } from './reconciler.ts';

/** Maps a changed object to the requests to enqueue. */
export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => Request[] | Request | undefined | null;

/** Normalises a {@link MapFunc} result to an array. */
export function toRequests(r: Request[] | Request | undefined | null): Request[] {
  if (!r) return [];
  return Array.isArray(r) ? r : [r];
}

/** `For`: the object's own key. */
export function requestForObject(obj: KubeObject): Request[] {
  const name = obj.metadata.name;
  if (!name) return [];
  return [obj.metadata.namespace ? { namespace: obj.metadata.namespace, name } : { name }];
}

/** The API group of an `apiVersion` ("" for the core group's "v1"). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export interface OwnerMapOptions {
  /** Map only the controller owner (`controller: true`), as `Owns` does. Default true. */
  onlyController?: boolean;
}

/**
 * `Owns`: the owner references of `ownerType` (matched by group and kind; the version may differ, as
 * in controller-runtime) mapped to owner keys. A namespaced owner is in the object's namespace, since
 * cross-namespace owner references are not allowed.
 */
export function requestsForOwner(ownerType: ResourceType, opts: OwnerMapOptions = {}): MapFunc {
  const onlyController = opts.onlyController ?? true;
  const matches = (ref: OwnerReference): boolean =>
    ref.kind === ownerType.kind && groupOf(ref.apiVersion) === ownerType.group && (!onlyController || !!ref.controller);
  return (obj) => {
    const out: Request[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (!matches(ref)) continue;
      if (!ownerType.namespaced) out.push({ name: ref.name });
      // A namespaced owner of a cluster-scoped object is invalid; nothing to map it to.
      else if (obj.metadata.namespace) out.push({ namespace: obj.metadata.namespace, name: ref.name });
      if (onlyController) break;
    }
    return out;
  };
}
