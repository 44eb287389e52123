// How the token code reads the objects tokens are bound to: straight from the store, as
// kube-apiserver's token getter reads its informer caches.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { StoredObject } from '../../storage/storage.ts';

export type BoundResource = 'serviceaccounts' | 'pods' | 'secrets' | 'nodes';

export type ObjectLookup = (
  resource: BoundResource,
  namespace: string | undefined,
  name: string,
) => JsonObject | undefined;

/**
 * Objects come back parsed once per stored version and shared: callers only read them. Every
 * request with a pod-bound token looks up its ServiceAccount and its pod, and parsing them again
 * each time was the larger part of authenticating it. A write stores a new version, so a stale
 * parse is never returned; the old one goes with it.
 */
export function storeLookup(store: ObjectStore, catalog: ResourceCatalog): ObjectLookup {
  const parsed = new WeakMap<StoredObject, JsonObject>();
  return (resource, namespace, name) => {
    const def = catalog.lookup('', 'v1', resource);
    const stored = def && store.getStored(def, def.namespaced ? namespace : undefined, name);
    if (!stored) return undefined;
    let obj = parsed.get(stored);
    if (!obj) parsed.set(stored, (obj = JSON.parse(stored.json) as JsonObject));
    return obj;
  };
}

export function metaOf(obj: JsonObject): { name: string; uid: string; deletionTimestamp?: string } {
  const m = (obj.metadata ?? {}) as JsonObject;
  return {
    name: String(m.name ?? ''),
    uid: String(m.uid ?? ''),
    ...(typeof m.deletionTimestamp === 'string' ? { deletionTimestamp: m.deletionTimestamp } : {}),
  };
}
