// Strategic merge patch (`application/strategic-merge-patch+json`), server side, with the results
// of k8s.io/apimachinery's strategicpatch.StrategicMergeMapPatch (v0.33-v0.36): maps merge key by
// key, null deletes, lists follow SchemaInfo (lists.ts), and the directives are:
// - `$patch: replace` in a map: the map becomes the patch's map; `$patch: delete`: it becomes {};
// - `$retainKeys: [...]` in a map: original keys not listed are dropped before merging;
// - `$setElementOrder/<list>: [...]`: the final order of the list's items;
// - `$deleteFromPrimitiveList/<list>: [...]`: values removed from a list of primitives.
// Errors: a body that is not a JSON object is a 400 with encoding/json's message; a malformed
// directive is a 400 with apimachinery's message (kube returns some of these as 500, see the
// report); lists of lists are kube's generic 422. The inputs are never modified.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, SchemaInfo } from '../schema-info.ts';
import { goTypeName, goValue, jsonKind } from '../go-text.ts';
import { deleteKey, setKey } from '../json-tree.ts';
import { malformedPatch } from '../patch-errors.ts';
import type { ListMerge } from './lists.ts';
import { listStrategy, mergeList } from './lists.ts';
import { normalizeElementOrder, partition } from './order.ts';
import {
  DELETE_FROM_PRIMITIVE_LIST,
  MAP_TYPE,
  PATCH_DIRECTIVE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER,
  asDecoded,
  badArgType,
  badPatchType,
  directiveTarget,
  elementType,
  fromPatch,
  noMergeKey,
} from './values.ts';
import { cloneJson, isObject, hasKey, presentKeys } from '../../../apimachinery/json/index.ts';

const LIST_TYPE = '[]interface {}';

/**
 * Applies `patch` (the decoded request body) to a copy of `original`. `meta` says how each list
 * merges (builtinSchemaInfo for built-in kinds).
 */
export function applyStrategicMergePatch(original: JsonObject, patch: unknown, meta: SchemaInfo): JsonObject {
  if (patch === undefined) throw malformedPatch('unexpected end of JSON input');
  // encoding/json decodes a JSON null into an empty map: nothing to do.
  if (patch === null) return cloneJson(original);
  if (!isObject(patch)) {
    throw malformedPatch(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  // Both copies are private from here on, so merging can work in place.
  return mergeMap(cloneJson(original), cloneJson(patch), [], meta);
}

function mergeMap(original: JsonObject, patch: JsonObject, path: FieldPath, meta: SchemaInfo): JsonObject {
  if (hasKey(patch, PATCH_DIRECTIVE)) {
    const directive = patch[PATCH_DIRECTIVE] as JsonValue;
    if (directive === 'delete') return {};
    if (directive !== 'replace') throw badPatchType(directive, patch);
    deleteKey(patch, PATCH_DIRECTIVE);
    return asDecoded(patch) as JsonObject;
  }
  retainKeys(original, patch);
  orderLists(original, patch, path, meta);

  // Additions before deletions, so that a list both extended and pruned by one patch loses what
  // it should (Go visits these keys in random order).
  const keys = presentKeys(patch);
  const ordered = [
    ...keys.filter((k) => !k.startsWith(DELETE_FROM_PRIMITIVE_LIST)),
    ...keys.filter((k) => k.startsWith(DELETE_FROM_PRIMITIVE_LIST)),
  ];
  for (const k of ordered) {
    const isDeleteList = k.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const key = isDeleteList ? directiveTarget(k, DELETE_FROM_PRIMITIVE_LIST) : k;
    const value = patch[k] as JsonValue;
    if (value === null) {
      deleteKey(original, key);
      continue;
    }
    const current = hasKey(original, key) ? (original[key] as JsonValue) : undefined;
    if (current === undefined || goTypeName(current) !== goTypeName(value)) {
      // Nothing of the same type to merge with. A deletion list then has nothing to delete from.
      if (!isDeleteList) store(original, key, fromPatch(value));
      continue;
    }
    const childPath = [...path, key];
    if (isObject(current)) {
      const replaceWhole = meta.isAtomicMap?.(childPath) ?? false;
      setKey(original, key, replaceWhole ? asDecoded(value) : mergeMap(current, value as JsonObject, childPath, meta));
    } else if (Array.isArray(current)) {
      setKey(original, key, mergeList(current, value as JsonValue[], listMerge(childPath, meta, isDeleteList)));
    } else {
      store(original, key, fromPatch(value));
    }
  }
  return original;
}

function listMerge(path: FieldPath, meta: SchemaInfo, isDeleteList: boolean): ListMerge {
  return {
    strategy: listStrategy(meta, path),
    path,
    isDeleteList,
    mergeMaps: (o: JsonObject, p: JsonObject) => mergeMap(o, p, path, meta),
  };
}

function store(target: JsonObject, key: string, value: JsonValue | undefined): void {
  if (value === undefined) deleteKey(target, key);
  else setKey(target, key, value);
}

/** `$retainKeys`: every key the patch sets must be listed; original keys not listed go. */
function retainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  deleteKey(patch, RETAIN_KEYS);
  if (!Array.isArray(list)) throw malformedPatch('invalid patch format of retainKeys');
  const retained = new Set(list);
  for (const k of presentKeys(patch)) {
    const exempt = patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER);
    if (!exempt && !retained.has(k)) throw malformedPatch('invalid patch format of retainKeys');
  }
  for (const k of presentKeys(original)) if (!retained.has(k)) deleteKey(original, k);
}

/**
 * `$setElementOrder/<list>`: merges the list now (it is then removed from the patch) and orders
 * the result: items named by the directive in its order, live-only items where the live list
 * had them. Items the directive names but neither list has are not created.
 */
function orderLists(original: JsonObject, patch: JsonObject, path: FieldPath, meta: SchemaInfo): void {
  for (const k of presentKeys(patch)) {
    if (!k.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[k] as JsonValue;
    deleteKey(patch, k);
    if (!Array.isArray(order)) throw badArgType(LIST_TYPE, order);
    const field = directiveTarget(k, SET_ELEMENT_ORDER);
    const live = listAt(original, field);
    const patched = listAt(patch, field);
    const childPath = [...path, field];
    const strategy = listStrategy(meta, childPath);
    checkOrder(patched ?? [], order, strategy.mergeKey);

    let merged: JsonValue[];
    if (live === undefined && patched === undefined) continue;
    else if (patched === undefined) merged = live as JsonValue[];
    else if (live === undefined) merged = fromPatch(patched) as JsonValue[];
    else merged = mergeList(live, patched, listMerge(childPath, meta, false));
    deleteKey(patch, field);

    const type = elementType(live ?? [], patched ?? []);
    const isMapList = type === MAP_TYPE;
    // An atomic list of maps has no identity to order by (apimachinery would crash here).
    if (type === undefined || (isMapList && strategy.mergeKey === '')) {
      setKey(original, field, merged);
      continue;
    }
    const [named, rest] = partition(merged, order, strategy.mergeKey);
    setKey(original, field, normalizeElementOrder(named, rest, order, live ?? [], strategy.mergeKey, isMapList));
  }
}

function listAt(m: JsonObject, field: string): JsonValue[] | undefined {
  if (!hasKey(m, field)) return undefined;
  const v = m[field] as JsonValue;
  if (!Array.isArray(v)) throw badArgType(LIST_TYPE, v);
  return v;
}

/** The patch list's items (deletions aside) must appear in `$setElementOrder` in the same order. */
function checkOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey !== '') {
    for (const v of patchList) if (!isObject(v)) throw badArgType(MAP_TYPE, v);
    items = patchList.filter((v) => (v as JsonObject)[PATCH_DIRECTIVE] !== 'delete');
  }
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    const item = items[p];
    if (isObject(item) && hasKey(item, PATCH_DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameItem(item, order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length) {
    throw malformedPatch(
      `the order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}`,
    );
  }
}

function sameItem(a: JsonValue, b: JsonValue, mergeKey: string): boolean {
  if (mergeKey === '') return a === b;
  for (const v of [a, b]) {
    if (!isObject(v)) throw badArgType(MAP_TYPE, v);
    if (!hasKey(v, mergeKey)) throw noMergeKey(v, mergeKey);
  }
  return (a as JsonObject)[mergeKey] === (b as JsonObject)[mergeKey];
}
