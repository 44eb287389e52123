// What the container configuration reads from the API, and where each object lives in storage
// (the keys are what the volume refresher watches). Missing objects are reported with the
// messages of kubelet's watch-based ConfigMap/Secret managers, whose group-resource is the
// singular `configmap` / `secret` (pkg/kubelet/configmap/configmap_manager.go,
// pkg/kubelet/secret/secret_manager.go): `configmap "x" not found`.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { goQuote } from '../../../apimachinery/strings/index.ts';
import type { Storage } from '../../storage/storage.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { listPrefix, objectKey } from '../../registry/keys.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import { parseStored, type ObjectStore } from '../../registry/store/index.ts';
import { ContainerConfigError } from './container-config.ts';

/** The kube internals this package reads through (see control-plane.ts ControlPlaneInternals). */
export interface KubeInternals {
  storage: Storage;
  store: ObjectStore;
  catalog: ResourceCatalog;
}

export type ObjectKind = 'configmaps' | 'secrets' | 'serviceaccounts' | 'nodes' | 'pods';

export interface ObjectReader {
  get(kind: ObjectKind, namespace: string, name: string): JsonObject | undefined;
  /** The storage key of an object, to watch it. */
  key(kind: ObjectKind, namespace: string, name: string): string;
  services(namespace: string): JsonObject[];
}

export function notFoundMessage(kind: 'configmaps' | 'secrets', name: string): string {
  return `${kind === 'configmaps' ? 'configmap' : 'secret'} ${goQuote(name)} not found`;
}

/** A ConfigMap or Secret that must exist; `undefined` when it is missing and optional. */
export function requireObject(
  reader: ObjectReader,
  kind: 'configmaps' | 'secrets',
  namespace: string,
  name: string,
  optional: boolean,
): JsonObject | undefined {
  const obj = reader.get(kind, namespace, name);
  if (!obj && !optional) throw new ContainerConfigError(notFoundMessage(kind, name));
  return obj;
}

export function storeReader(kube: KubeInternals): ObjectReader {
  const defs = new Map<string, ResourceDef>();
  const def = (resource: string): ResourceDef => {
    let d = defs.get(resource);
    if (!d) {
      d = kube.catalog.lookup('', 'v1', resource);
      if (!d) throw new Error(`no resource v1 ${resource}`);
      defs.set(resource, d);
    }
    return d;
  };
  return {
    get(kind, namespace, name) {
      const d = def(kind);
      const stored = kube.store.getStored(d, d.namespaced ? namespace : undefined, name);
      return stored ? parseStored(stored) : undefined;
    },
    key(kind, namespace, name) {
      const d = def(kind);
      return objectKey(d, d.namespaced ? namespace : undefined, name);
    },
    services(namespace) {
      return kube.storage.list(listPrefix(def('services'), namespace)).map(parseStored);
    },
  };
}
