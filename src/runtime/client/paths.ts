// URL construction for the REST layout: /api/v1 for the core group, /apis/<group>/<version> otherwise.
import type { ResourceType } from './types.ts';

export function groupVersionPath(type: ResourceType): string {
  return type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
}

/**
 * Path of a collection (no name) or an object. `namespace` is ignored for cluster-scoped kinds and may
 * be omitted for namespaced kinds only when addressing the cluster-wide collection.
 */
export function resourcePath(type: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  let p = groupVersionPath(type);
  if (type.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${type.plural}`;
  if (name !== undefined) {
    if (name === '') throw new TypeError(`${type.kind}: empty name`);
    p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
  }
  return p;
}

/** Appends query parameters, skipping undefined and empty values. */
export function withQuery(path: string, params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
