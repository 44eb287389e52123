// Element order after a strategic merge, as apimachinery computes it (normalizeElementOrder): the
// items the patch names keep the patch's order (or `$setElementOrder`'s), the items only the server
// has keep the live order, and the two runs are interleaved using the live order where both sides
// can be placed in it. An item the live list does not know is placed at the first comparison it
// takes part in, so new items added without `$setElementOrder` land before the live ones.
// Items are identified by their merge key value, or by value in a list of primitives.
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import type { StatusError } from '../../../apimachinery/errors/index.ts';
import { getKey } from '../json-tree.ts';
import { malformedPatch } from '../patch-errors.ts';
import { PATCH_DIRECTIVE, badArgType, MAP_TYPE, noMergeKey } from './values.ts';
import { isObject } from '../../../apimachinery/json/index.ts';

type Identity = (item: JsonValue) => JsonValue | undefined;

function identity(mergeKey: string): Identity {
  return mergeKey === '' ? (item) => item : (item) => (isObject(item) ? getKey(item, mergeKey) : undefined);
}

function positions(list: JsonValue[], id: Identity): (item: JsonValue) => number {
  const first = new Map<JsonValue | undefined, number>();
  list.forEach((item, i) => {
    const k = id(item);
    if (!first.has(k)) first.set(k, i);
  });
  return (item) => first.get(id(item)) ?? -1;
}

/** Splits `merged` into the items `by` names and the rest, each in `merged`'s order. */
export function partition(merged: JsonValue[], by: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  if (mergeKey !== '') {
    requireMergeKeys(mergeKey, merged);
    for (const [i, v] of by.entries()) {
      if (!isObject(v)) throw noMapAt(i);
    }
  }
  const at = positions(by, identity(mergeKey));
  const named: JsonValue[] = [];
  const rest: JsonValue[] = [];
  for (const item of merged) (at(item) >= 0 ? named : rest).push(item);
  return [named, rest];
}

export function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  isMapList: boolean,
): JsonValue[] {
  const patchSorted = sortByOrder(patchItems, patchOrder, mergeKey, isMapList);
  const serverSorted = sortByOrder(serverOnly, serverOrder, mergeKey, isMapList);
  const at = positions(serverOrder, identity(mergeKey));
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverSorted.length && j < patchSorted.length) {
    const l = at(serverSorted[i]);
    const r = at(patchSorted[j]);
    if (l >= 0 && r >= 0 && l < r) out.push(serverSorted[i++]);
    else out.push(patchSorted[j++]);
  }
  return out.concat(serverSorted.slice(i), patchSorted.slice(j));
}

function sortByOrder(items: JsonValue[], order: JsonValue[], mergeKey: string, isMapList: boolean): JsonValue[] {
  let toSort = items;
  let deletions: JsonValue[] = [];
  if (isMapList) {
    requireMergeKeys(mergeKey, items, order);
    deletions = items.filter((v) => isDeletion(v));
    toSort = items.filter((v) => !isDeletion(v));
  }
  const at = positions(order, identity(mergeKey));
  return [...toSort].sort((a, b) => at(a) - at(b)).concat(deletions);
}

function isDeletion(v: JsonValue): boolean {
  return isObject(v) && getKey(v, PATCH_DIRECTIVE) === 'delete';
}

function requireMergeKeys(mergeKey: string, ...lists: JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw badArgType(MAP_TYPE, item);
      if (getKey(item, mergeKey) === undefined) throw noMergeKey(item, mergeKey);
    }
  }
}

function noMapAt(i: number): StatusError {
  return malformedPatch(`value for key ${i} is not a map`);
}
