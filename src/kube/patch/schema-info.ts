// How list and map fields merge, per field path. Strategic merge patch (built-in kinds) and
// server-side apply (all kinds) both need it; built-in kinds answer from a hand-kept table,
// custom resources from their CRD schema (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
// `x-kubernetes-map-type`).
import type { JsonValue } from '../../apimachinery/meta/index.ts';

/** Field names from the object root, list indices omitted: `['spec', 'containers', 'ports']`. */
export type FieldPath = readonly string[];

export type ListKind = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: string[] };

export interface SchemaInfo {
  /** How the list at `path` merges; undefined means atomic. */
  listKind(path: FieldPath): ListKind | undefined;
  /** True when the object at `path` is replaced whole (`x-kubernetes-map-type: atomic`). */
  isAtomicMap?(path: FieldPath): boolean;
  /**
   * The schema default of key field `key` in the items of the map list at `path`. Server-side
   * apply names an item that omits the key by this default, as structured-merge-diff does
   * (typed/helpers.go getAssociativeKeyDefault): an applied port without `protocol` is then the
   * same item as the stored, defaulted `protocol: TCP` one. Absent or undefined: no default, and
   * the key is left out of the item's name.
   */
  listKeyDefault?(path: FieldPath, key: string): JsonValue | undefined;
}

export const atomicSchemaInfo: SchemaInfo = { listKind: () => undefined };
