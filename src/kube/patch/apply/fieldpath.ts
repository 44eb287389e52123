// Field sets: which fields of an object a manager owns. The tree, its order and its fieldsV1 encoding
// follow structured-merge-diff, because clients read `metadata.managedFields` back: keys are
// `f:<name>` (map field), `k:{"name":"x"}` (map-list item, key fields sorted), `v:<json>` (set
// item), `i:<n>` (index), and `.` marks a node that is itself a member as well as having children.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, SchemaInfo } from '../schema-info.ts';
import type { Path, PathElement } from './path.ts';

import { isAtomicMapAt, listItemElement, listKindAt } from './list.ts';
import { comparePathElements, field, FieldsV1Error, parsePathElement, serializePathElement } from './path.ts';
import { isObject, presentKeys } from '../../../apimachinery/json/index.ts';

export type { Path, PathElement } from './path.ts';
export {
  comparePathElements,
  compareValues,
  field,
  FieldsV1Error,
  parsePathElement,
  pathToString,
  serializePathElement,
} from './path.ts';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of paths as a tree. Each node has members (paths ending there) and children (paths going
 * deeper); a path element may be both. Operations return new sets; `insert` mutates and is meant
 * for building a set.
 */
export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    const k = serializePathElement(path[0]);
    if (path.length === 1) {
      this.members.set(k, path[0]);
      return;
    }
    let c = this.children.get(k);
    if (!c) this.children.set(k, (c = { pe: path[0], set: new FieldSet() }));
    c.set.insert(path.slice(1));
  }

  /** Puts `sub` under `pe`, merging with what is there. Only for building a set. */
  adopt(pe: PathElement, sub: FieldSet): void {
    const k = serializePathElement(pe);
    const mine = this.children.get(k);
    this.children.set(k, { pe, set: mine ? mine.set.union(sub) : sub });
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    const k = serializePathElement(path[0]);
    if (path.length === 1) return this.members.has(k);
    return this.children.get(k)?.set.has(path.slice(1)) ?? false;
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  /** The subtree under `pe` (paths relative to it), or an empty set. */
  child(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  get isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  get size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size;
    return n;
  }

  union(o: FieldSet): FieldSet {
    const out = this.copy();
    for (const [k, pe] of o.members) out.members.set(k, pe);
    for (const [k, c] of o.children) {
      const mine = out.children.get(k);
      out.children.set(k, { pe: c.pe, set: mine ? mine.set.union(c.set) : c.set.copy() });
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs) continue;
      const i = c.set.intersection(theirs.set);
      if (!i.isEmpty) out.children.set(k, { pe: c.pe, set: i });
    }
    return out;
  }

  /** Paths of this set not in `o`. A member of `o` does not remove this set's deeper paths. */
  difference(o: FieldSet): FieldSet {
    return this.subtract(o, false);
  }

  /** Like difference, but a member of `o` removes the whole subtree under it. */
  recursiveDifference(o: FieldSet): FieldSet {
    return this.subtract(o, true);
  }

  private subtract(o: FieldSet, recursive: boolean): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (recursive && o.members.has(k)) continue;
      const theirs = o.children.get(k);
      const d = theirs ? c.set.subtract(theirs.set, recursive) : c.set;
      if (!d.isEmpty) out.children.set(k, { pe: c.pe, set: d });
    }
    return out;
  }

  /** Only the paths that have nothing below them in this set. */
  leaves(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!this.children.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.leaves() });
    return out;
  }

  /**
   * Every map field that has owned paths below it becomes a member too. Pruning uses this so that
   * a manager that set `.spec.foo.bar` and drops `foo` entirely gets `foo` itself removed.
   */
  withFieldsAsMembers(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (c.pe.kind === 'field') out.members.set(k, c.pe);
      out.children.set(k, { pe: c.pe, set: c.set.withFieldsAsMembers() });
    }
    return out;
  }

  /** Keeps only the top-level fields for which `keep(name)` holds, with everything under them. */
  filterTopLevel(keep: (name: string) => boolean): FieldSet {
    const out = new FieldSet();
    const ok = (pe: PathElement): boolean => pe.kind !== 'field' || keep(pe.name);
    for (const [k, pe] of this.members) if (ok(pe)) out.members.set(k, pe);
    for (const [k, c] of this.children) if (ok(c.pe)) out.children.set(k, c);
    return out;
  }

  /** All paths, in kube's iteration order: a node's members first, then its children, each sorted. */
  paths(): Path[] {
    const out: Path[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: Path, out: Path[]): void {
    for (const pe of sortedValues(this.members, (pe) => pe)) out.push([...prefix, pe]);
    for (const c of sortedValues(this.children, (c) => c.pe)) c.set.collect([...prefix, c.pe], out);
  }

  equals(o: FieldSet): boolean {
    return this.difference(o).isEmpty && o.difference(this).isEmpty;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.copy() });
    return out;
  }

  /** The `fieldsV1` JSON, keys in kube's order so the stored object serializes the same bytes. */
  toFieldsV1(): JsonObject {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): JsonObject {
    const out: JsonObject = {};
    if (includeSelf) out['.'] = {};
    const keys = new Map<string, PathElement>(this.members);
    for (const [k, c] of this.children) keys.set(k, c.pe);
    for (const [k] of [...keys].sort((a, b) => comparePathElements(a[1], b[1]))) {
      const c = this.children.get(k);
      out[k] = c ? c.set.emit(this.members.has(k)) : {};
    }
    return out;
  }

  /** Parses `fieldsV1`. Unknown key prefixes are dropped, as kube does; malformed keys throw FieldsV1Error. */
  static fromFieldsV1(json: JsonValue | undefined): FieldSet {
    if (json === undefined || json === null) return new FieldSet();
    if (!isObject(json)) throw new FieldsV1Error('fieldsV1 must be an object');
    return readNode(json).set ?? new FieldSet();
  }
}

function sortedValues<V>(m: Map<string, V>, pe: (v: V) => PathElement): V[] {
  return [...m.values()].sort((a, b) => comparePathElements(pe(a), pe(b)));
}

function readNode(obj: JsonObject): { set: FieldSet | undefined; isMember: boolean } {
  let set: FieldSet | undefined;
  let isMember = false;
  for (const k of presentKeys(obj)) {
    if (k === '.') {
      isMember = true;
      continue;
    }
    const pe = parsePathElement(k);
    if (!pe) continue;
    const v = obj[k];
    if (!isObject(v)) throw new FieldsV1Error(`value of ${JSON.stringify(k)} must be an object`);
    const sub = readNode(v);
    set ??= new FieldSet();
    if (sub.isMember) set.insert([pe]);
    if (sub.set) set.adopt(pe, sub.set);
  }
  // A node with nothing recognisable below it is a leaf, and so a member of its parent.
  return { set, isMember: isMember || set === undefined };
}

/**
 * The fields an applied configuration sets (structured-merge-diff's ToFieldSet): scalars, atomic
 * lists and maps, nulls and empty maps are members; map-list and set items are members and their
 * fields are owned below them; a non-empty map is only a parent. Items a list repeats are owned
 * once as an item and not descended into.
 */
export function fromObject(obj: JsonObject, schema: SchemaInfo): FieldSet {
  const set = new FieldSet();
  walkObject(set, [], [], obj, schema);
  return set;
}

function walkObject(set: FieldSet, path: Path, names: FieldPath, obj: JsonObject, schema: SchemaInfo): void {
  for (const k of presentKeys(obj)) {
    const v = obj[k] as JsonValue;
    const p = [...path, field(k)];
    walkValue(set, p, [...names, k], v, schema);
    if (v === null || (isObject(v) && presentKeys(v).length === 0)) set.insert(p);
  }
}

function walkValue(set: FieldSet, path: Path, names: FieldPath, v: JsonValue, schema: SchemaInfo): void {
  if (Array.isArray(v)) {
    const kind = listKindAt(schema, names);
    const elements = kind.type === 'atomic' ? undefined : v.map((item) => listItemElement(schema, names, kind, item));
    if (!elements || elements.some((e) => 'error' in e)) {
      // A list whose items cannot all be named is owned whole, like an atomic one.
      set.insert(path);
      return;
    }
    const seen = new Map<string, number>();
    for (const pe of elements as PathElement[]) {
      const k = serializePathElement(pe);
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    elements.forEach((pe, i) => {
      const p = [...path, pe as PathElement];
      if (seen.get(serializePathElement(pe as PathElement))! === 1) walkValue(set, p, names, v[i], schema);
      set.insert(p);
    });
    return;
  }
  if (isObject(v)) {
    if (isAtomicMapAt(schema, names)) set.insert(path);
    else walkObject(set, path, names, v, schema);
    return;
  }
  set.insert(path);
}
