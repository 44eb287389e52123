// Storage keys: `/<group or "core">/<resource>/[<namespace>/]<name>`, as kine lays out etcd keys.
import type { ResourceDef } from './resource.ts';

function storageResource(def: ResourceDef): { group: string; resource: string } {
  return def.storageOf ?? { group: def.group, resource: def.resource };
}

export function resourcePrefix(def: ResourceDef): string {
  const s = storageResource(def);
  return `/${s.group || 'core'}/${s.resource}/`;
}

/** Prefix of every object of `def`, or of those in one namespace. */
export function listPrefix(def: ResourceDef, namespace?: string): string {
  return def.namespaced && namespace ? `${resourcePrefix(def)}${namespace}/` : resourcePrefix(def);
}

export function objectKey(def: ResourceDef, namespace: string | undefined, name: string): string {
  return def.namespaced ? `${resourcePrefix(def)}${namespace ?? ''}/${name}` : `${resourcePrefix(def)}${name}`;
}

/** Namespace and name from a key under `resourcePrefix(def)`. */
export function splitKey(def: ResourceDef, key: string): { namespace?: string; name: string } {
  const rest = key.slice(resourcePrefix(def).length);
  if (!def.namespaced) return { name: rest };
  const i = rest.indexOf('/');
  return { namespace: rest.slice(0, i), name: rest.slice(i + 1) };
}
