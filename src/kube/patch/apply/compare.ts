// What changed between two versions of an object, as field sets. Ownership moves by these sets:
// an update owns what it added or modified, and every manager loses what was removed. Follows
// structured-merge-diff's comparison: leaves (scalars, atomic lists and maps, empty containers)
// are added, removed or modified; a map or list item that appears or disappears is itself added or
// removed along with everything below it.
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, SchemaInfo } from '../schema-info.ts';
import type { Path, PathElement } from './path.ts';

import { FieldSet } from './fieldpath.ts';
import { field, serializePathElement } from './path.ts';
import { isAtomicMapAt, listItemElement, listKindAt } from './list.ts';
import { deepEqual, isObject, presentKeys } from '../../../apimachinery/json/index.ts';

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

type Shape = 'map' | 'list' | 'scalar';

const shapeOf = (v: JsonValue): Shape => (Array.isArray(v) ? 'list' : isObject(v) ? 'map' : 'scalar');

const isEmptyContainer = (v: JsonValue | undefined): boolean =>
  v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : isObject(v) && presentKeys(v).length === 0);

export function compareObjects(lhs: JsonValue | undefined, rhs: JsonValue | undefined, schema: SchemaInfo): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  new Walker(c, schema).node([], [], lhs, rhs);
  return c;
}

class Walker {
  constructor(
    private readonly c: Comparison,
    private readonly schema: SchemaInfo,
  ) {}

  node(path: Path, names: FieldPath, l: JsonValue | undefined, r: JsonValue | undefined): void {
    if (l === undefined && r === undefined) return;
    // null takes the shape of the other side: a null map that gains fields is not "modified".
    const ls = l === undefined || l === null ? undefined : shapeOf(l);
    const rs = r === undefined || r === null ? undefined : shapeOf(r);
    const shape = ls ?? rs ?? 'scalar';
    if (ls && rs && ls !== rs) {
      this.c.modified.insert(path);
      if (ls !== 'scalar') this.children(path, names, ls, l, undefined);
      if (rs !== 'scalar') this.children(path, names, rs, undefined, r);
      return;
    }
    const atomic =
      shape === 'scalar' ||
      (shape === 'list' && listKindAt(this.schema, names).type === 'atomic') ||
      (shape === 'map' && isAtomicMapAt(this.schema, names)) ||
      (isEmptyContainer(l) && isEmptyContainer(r));
    if (atomic) {
      if (path.length === 0) return;
      if (l === undefined) this.c.added.insert(path);
      else if (r === undefined) this.c.removed.insert(path);
      else if (!deepEqual(l, r)) this.c.modified.insert(path);
      return;
    }
    this.children(path, names, shape, nullToUndefined(l), nullToUndefined(r));
    if (path.length === 0) return;
    if (l === undefined) this.c.added.insert(path);
    else if (r === undefined) this.c.removed.insert(path);
  }

  private children(
    path: Path,
    names: FieldPath,
    shape: Shape,
    l: JsonValue | undefined,
    r: JsonValue | undefined,
  ): void {
    if (shape === 'map') {
      if (isAtomicMapAt(this.schema, names)) return;
      const lo = isObject(l) ? l : {};
      const ro = isObject(r) ? r : {};
      const keys = new Set([...presentKeys(lo), ...presentKeys(ro)]);
      for (const k of keys) this.node([...path, field(k)], [...names, k], lo[k], ro[k]);
      return;
    }
    if (shape === 'list' && listKindAt(this.schema, names).type !== 'atomic')
      this.listItems(path, names, Array.isArray(l) ? l : [], Array.isArray(r) ? r : []);
  }

  private listItems(path: Path, names: FieldPath, l: JsonValue[], r: JsonValue[]): void {
    const kind = listKindAt(this.schema, names);
    const li = index(this.schema, names, kind, l);
    const ri = index(this.schema, names, kind, r);
    if (!li || !ri) {
      // Items that cannot be named: compare the list as one value, as for an atomic list.
      if (!deepEqual(l, r)) this.c.modified.insert(path);
      return;
    }
    const all = new Map<string, PathElement>();
    for (const [k, e] of li.byKey) all.set(k, e.pe);
    for (const [k, e] of ri.byKey) all.set(k, e.pe);
    for (const [k, pe] of all) {
      const lv = li.byKey.get(k)?.values ?? [];
      const rv = ri.byKey.get(k)?.values ?? [];
      const p = [...path, pe];
      if (lv.length <= 1 && rv.length <= 1) this.node(p, names, lv[0], rv[0]);
      else if (lv.length >= 2 && rv.length >= 2) {
        if (!deepEqual(lv, rv)) this.c.modified.insert(p);
      } else if (lv.length >= 2) {
        if (rv.length) this.node(p, names, undefined, rv[0]);
        this.c.removed.insert(p);
      } else {
        if (lv.length) this.node(p, names, lv[0], undefined);
        this.c.added.insert(p);
      }
    }
  }
}

const nullToUndefined = (v: JsonValue | undefined): JsonValue | undefined => (v === null ? undefined : v);

export interface ListIndex {
  /** Items grouped by path element, in first-seen order. */
  byKey: Map<string, { pe: PathElement; values: JsonValue[] }>;
  /** The serialized path element of each item, in list order. */
  keys: string[];
}

/** Names every list item; undefined if one cannot be named. */
export function index(
  schema: SchemaInfo,
  names: FieldPath,
  kind: ReturnType<typeof listKindAt>,
  items: JsonValue[],
): ListIndex | undefined {
  const byKey: ListIndex['byKey'] = new Map();
  const keys: string[] = [];
  for (const item of items) {
    const pe = listItemElement(schema, names, kind, item);
    if ('error' in pe) return undefined;
    const k = serializePathElement(pe);
    keys.push(k);
    const e = byKey.get(k);
    if (e) e.values.push(item);
    else byKey.set(k, { pe, values: [item] });
  }
  return { byKey, keys };
}
