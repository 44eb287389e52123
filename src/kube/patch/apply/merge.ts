// Merging an applied configuration into the live object, and pruning what the applier stopped
// setting. Behaviour follows structured-merge-diff so that results match kube-apiserver:
// scalars, atomic lists and atomic maps are replaced; maps merge per field; map-lists merge per
// key and sets per value, keeping live-only items where they were and taking the configuration's
// order for the rest.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, SchemaInfo } from '../schema-info.ts';
import type { FieldSet } from './fieldpath.ts';

import { field } from './path.ts';
import { index } from './compare.ts';
import { isAtomicMapAt, listKindAt } from './list.ts';
import { cloneJson, isObject, presentKeys } from '../../../apimachinery/json/index.ts';

const isEmpty = (v: JsonValue): boolean =>
  Array.isArray(v) ? v.length === 0 : isObject(v) ? presentKeys(v).length === 0 : false;

const shape = (v: JsonValue): string => (Array.isArray(v) ? 'list' : isObject(v) ? 'map' : 'scalar');

export function mergeApplied(live: JsonObject, applied: JsonObject, schema: SchemaInfo): JsonObject {
  return merge(live, applied, [], schema) as JsonObject;
}

function merge(
  l: JsonValue | undefined,
  r: JsonValue | undefined,
  names: FieldPath,
  schema: SchemaInfo,
): JsonValue | undefined {
  if (r === undefined) return l === undefined ? undefined : cloneJson(l);
  if (l === undefined || l === null) return cloneJson(r);
  const granular = Array.isArray(l)
    ? listKindAt(schema, names).type !== 'atomic'
    : isObject(l) && !isAtomicMapAt(schema, names);
  // A null in the configuration does not clear a granular map or list: there is nothing to merge.
  if (r === null) return granular && !isEmpty(l) ? cloneJson(l) : null;
  if (shape(l) !== shape(r) || !granular || (isEmpty(l) && isEmpty(r))) return cloneJson(r);
  if (Array.isArray(l)) return mergeList(l, r as JsonValue[], names, schema);
  const lo = l as JsonObject;
  const ro = r as JsonObject;
  const out: JsonObject = {};
  for (const k of presentKeys(lo)) out[k] = merge(lo[k], ro[k], [...names, k], schema);
  for (const k of presentKeys(ro)) if (!(k in out)) out[k] = merge(undefined, ro[k], [...names, k], schema);
  return out;
}

function mergeList(l: JsonValue[], r: JsonValue[], names: FieldPath, schema: SchemaInfo): JsonValue[] {
  const kind = listKindAt(schema, names);
  const li = index(schema, names, kind, l);
  const ri = index(schema, names, kind, r);
  if (!li || !ri) return cloneJson(r);
  const lKeys = li.keys;
  const rKeys = ri.keys;
  // A key the live list repeats merges as if the live item were absent.
  const liveItem = (k: string): JsonValue | undefined => {
    const vs = li.byKey.get(k)?.values;
    return vs === undefined ? undefined : vs.length === 1 ? vs[0] : null;
  };
  const applied = (k: string): JsonValue | undefined => ri.byKey.get(k)?.values[0];
  const shared = rKeys.filter((k) => li.byKey.has(k));
  let nextShared = shared.shift();
  const done = new Set<string>();
  const out: JsonValue[] = [];
  const emit = (v: JsonValue | undefined): void => {
    if (v !== undefined) out.push(v);
  };
  let i = 0;
  let j = 0;
  while (i < lKeys.length || j < rKeys.length) {
    if (i < lKeys.length && j < rKeys.length) {
      const k = lKeys[i];
      if (k === rKeys[j]) {
        done.add(k);
        emit(merge(liveItem(k), applied(k), names, schema));
        i++;
        j++;
        nextShared = shared.shift();
        continue;
      }
      // A shared item waits until the configuration reaches it, unless it is the next one due.
      if (ri.byKey.has(k) && nextShared !== undefined && nextShared !== k) {
        i++;
        continue;
      }
    }
    if (i < lKeys.length) {
      const k = lKeys[i];
      if (!ri.byKey.has(k)) {
        emit(cloneJson(l[i]));
        i++;
        continue;
      }
      if (done.has(k)) i++;
    }
    if (j < rKeys.length) {
      const k = rKeys[j];
      done.add(k);
      emit(merge(liveItem(k), applied(k), names, schema));
      j++;
      if (nextShared === k) nextShared = shared.shift();
    }
  }
  return out;
}

/**
 * Removes what the applier set last time (`last`) and nobody owns now (`owned`, the applier's new
 * set included), whole subtrees at a time. A map field with owned paths below it counts as owned,
 * so it stays and only its unowned parts from `last` go. Fields nobody ever owned are left alone.
 */
export function pruneUnowned(obj: JsonObject, last: FieldSet, owned: FieldSet, schema: SchemaInfo): JsonObject {
  if (last.isEmpty) return obj;
  return pruneMap(obj, last.withFieldsAsMembers(), owned.withFieldsAsMembers(), [], schema);
}

function pruneMap(obj: JsonObject, last: FieldSet, owned: FieldSet, names: FieldPath, schema: SchemaInfo): JsonObject {
  const out: JsonObject = {};
  for (const k of presentKeys(obj)) {
    const pe = field(k);
    if (last.hasMember(pe) && !owned.hasMember(pe)) continue;
    out[k] = pruneInner(obj[k] as JsonValue, last.child(pe), owned.child(pe), [...names, k], schema);
  }
  return out;
}

function pruneInner(v: JsonValue, last: FieldSet, owned: FieldSet, names: FieldPath, schema: SchemaInfo): JsonValue {
  if (last.isEmpty) return v;
  if (isObject(v)) return isAtomicMapAt(schema, names) ? v : pruneMap(v, last, owned, names, schema);
  if (!Array.isArray(v)) return v;
  const kind = listKindAt(schema, names);
  if (kind.type === 'atomic') return v;
  const idx = index(schema, names, kind, v);
  if (!idx) return v;
  const out: JsonValue[] = [];
  v.forEach((item, i) => {
    const pe = idx.byKey.get(idx.keys[i])!.pe;
    if (last.hasMember(pe) && !owned.hasMember(pe)) return;
    out.push(pruneInner(item, last.child(pe), owned.child(pe), names, schema));
  });
  return out;
}
