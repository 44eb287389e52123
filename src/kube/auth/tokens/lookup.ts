// How the token code reads the objects tokens are bound to: straight from the store, as
// kube-apiserver's token getter reads its informer caches.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { ObjectStore } from '../../registry/store/index.ts';

export type BoundResource = 'serviceaccounts' | 'pods' | 'secrets' | 'nodes';

export type ObjectLookup = (
  resource: BoundResource,
  namespace: string | undefined,
  name: string,
) => JsonObject | undefined;

export function storeLookup(store: ObjectStore, catalog: ResourceCatalog): ObjectLookup {
  return (resource, namespace, name) => {
    const def = catalog.lookup('', 'v1', resource);
    const stored = def && store.getStored(def, def.namespaced ? namespace : undefined, name);
    return stored ? (JSON.parse(stored.json) as JsonObject) : undefined;
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
