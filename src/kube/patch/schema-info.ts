// How list and map fields merge, per field path. Strategic merge patch (built-in kinds) and
// server-side apply (all kinds) both need it; built-in kinds answer from a hand-kept table,
// custom resources from their CRD schema (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
// `x-kubernetes-map-type`).

/** Field names from the object root, list indices omitted: `['spec', 'containers', 'ports']`. */
export type FieldPath = readonly string[];

export type ListKind = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: string[] };

export interface SchemaInfo {
  /** How the list at `path` merges; undefined means atomic. */
  listKind(path: FieldPath): ListKind | undefined;
  /** True when the object at `path` is replaced whole (`x-kubernetes-map-type: atomic`). */
  isAtomicMap?(path: FieldPath): boolean;
}

export const atomicSchemaInfo: SchemaInfo = { listKind: () => undefined };
