// How a strategic merge patch merges one list (apimachinery's mergeSliceHandler / mergeSlice).
// A list with a merge strategy (`map` or `set` in SchemaInfo) merges: maps by merge key, honouring
// `{$patch: delete}` and `{$patch: replace}` elements; primitives as a set without duplicates.
// A `$deleteFromPrimitiveList/<field>` list removes values, whatever the field's strategy. Any
// other list is replaced by the patch's.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, SchemaInfo } from '../schema-info.ts';
import { getKey } from '../json-tree.ts';
import { malformedPatch } from '../patch-errors.ts';
import { normalizeElementOrder, partition } from './order.ts';
import { MAP_TYPE, PATCH_DIRECTIVE, asDecoded, badPatchType, elementType, noMergeKey } from './values.ts';
import { isObject, hasKey } from '../../../apimachinery/json/index.ts';

export interface ListStrategy {
  merge: boolean;
  /** The patchMergeKey: a map list's first key, '' for primitives. */
  mergeKey: string;
}

/** A `map` list merges on its first key, which for built-in kinds is the patchMergeKey; the other
 * keys (e.g. `protocol` next to `containerPort`) only matter to server-side apply. */
export function listStrategy(meta: SchemaInfo, path: FieldPath): ListStrategy {
  const kind = meta.listKind(path);
  if (kind?.type === 'map') return { merge: true, mergeKey: kind.keys[0] ?? '' };
  return { merge: kind?.type === 'set', mergeKey: '' };
}

export type MapMerger = (original: JsonObject, patch: JsonObject) => JsonObject;

export interface ListMerge {
  strategy: ListStrategy;
  path: FieldPath;
  isDeleteList: boolean;
  mergeMaps: MapMerger;
}

export function mergeList(original: JsonValue[], patch: JsonValue[], m: ListMerge): JsonValue[] {
  if (!m.strategy.merge && !m.isDeleteList) return asDecoded(patch) as JsonValue[];
  if (original.length === 0 && patch.length === 0) return original;
  const isMapList = elementType(original, patch) === MAP_TYPE;
  const { mergeKey } = m.strategy;
  let base = original;
  let order = patch;
  let merged: JsonValue[];
  if (!isMapList) {
    if (m.isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [...new Set([...original, ...patch])];
  } else {
    if (mergeKey === '') throw malformedPatch(`cannot merge lists without merge key for ${m.path.join('.')}`);
    const special = applySpecialElements(original, patch, mergeKey);
    base = special.base;
    order = special.rest ?? [];
    merged = mergeByKey(base, order, mergeKey, m.mergeMaps);
  }
  const [named, rest] = partition(merged, order, mergeKey);
  return normalizeElementOrder(named, rest, order, base, mergeKey, isMapList);
}

/** Applies `{$patch: delete}` elements to `original`; a `{$patch: replace}` element makes the
 * patch's other elements the whole list (`rest` is then undefined: nothing left to merge). */
function applySpecialElements(
  original: JsonValue[],
  patch: JsonValue[],
  mergeKey: string,
): { base: JsonValue[]; rest: JsonValue[] | undefined } {
  let base = original;
  const rest: JsonValue[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasKey(item, PATCH_DIRECTIVE)) {
      rest.push(item);
      continue;
    }
    const directive = item[PATCH_DIRECTIVE] as JsonValue;
    if (directive === 'delete') {
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const key = item[mergeKey];
      base = base.filter((x) => !(isObject(x) && hasKey(x, mergeKey) && x[mergeKey] === key));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw malformedPatch('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  return replace ? { base: asDecoded(rest) as JsonValue[], rest: undefined } : { base, rest };
}

/** Merges each patch element into the original element with the same merge key value, or
 * appends it. */
function mergeByKey(base: JsonValue[], patch: JsonValue[], mergeKey: string, mergeMaps: MapMerger): JsonValue[] {
  const out = [...base];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const key = item[mergeKey];
    const i = out.findIndex((x) => isObject(x) && hasKey(x, mergeKey) && getKey(x, mergeKey) === key);
    if (i >= 0) out[i] = mergeMaps(out[i] as JsonObject, item);
    else out.push(asDecoded(item));
  }
  return out;
}
