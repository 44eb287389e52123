// The informer's object store: objects by key plus secondary indexes. A relist swaps the whole
// content in one synchronous step and reports the differences, so readers never see half a relist.
//
// Representation: each object is held as its JSON text plus the values of its index functions,
// not as a parsed object graph. A parsed ConfigMap costs ~2.6× its JSON size in V8 (a hidden
// class, a property array and a string header per field); a one-byte string costs ~1× plus a
// 16-byte header. Parsed objects are handed out through a WeakRef, so every caller holding an
// object keeps sharing one instance, and the store re-parses on demand once they are all
// collected. The cost moves to reads of objects nobody holds: a JSON.parse per object (listing
// 50,000 cold ConfigMaps parses ~20 MB). `keepParsedObjects` restores the old trade-off.
import type { KubeObject } from '../client/types.ts';
import { deepFreeze } from './transform.ts';

export type IndexFunc<T> = (obj: T) => string[];

/** "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export const NAMESPACE_INDEX = 'namespace';
export const OWNER_UID_INDEX = 'ownerUid';

export function namespaceIndex(obj: KubeObject): string[] {
  return obj.metadata.namespace ? [obj.metadata.namespace] : [];
}

export function ownerUidIndex(obj: KubeObject): string[] {
  return (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter((u) => typeof u === 'string' && u !== '');
}

export interface ReplaceDiff<T> {
  added: T[];
  updated: Array<[oldObj: T, newObj: T]>;
  deleted: T[];
}

export interface StoreOptions<T> {
  onIndexError?: (index: string, obj: T, err: unknown) => void;
  /** Deep-freeze every object the store parses (objects passed in are the caller's business). */
  freezeObjects?: boolean;
  /** Hold parsed objects strongly (no JSON text); see `InformerOptions.keepParsedObjects`. */
  keepParsedObjects?: boolean;
}

/** The values one index function returned for one object: none, one (the common case), or several. */
type IndexValues = string | readonly string[] | undefined;

/**
 * The objects with one index value. Holding entries rather than keys saves byIndex a Map lookup per
 * object; `value` lets every object carrying the value share one string.
 */
interface Bucket<T extends object> {
  readonly value: string;
  readonly entries: Set<Entry<T>>;
}

type Index<T extends object> = Map<string, Bucket<T>>;

class Entry<T extends object> {
  constructor(
    /** The object's JSON text; '' when parsed objects are kept strongly. */
    public json: string,
    /**
     * Values of the stored indexes (every index but "namespace", which the key already spells), in
     * `storedIndexes` order; undefined when all are empty. Kept so that removing or re-indexing an
     * object never needs its parsed form.
     */
    public idx: IndexValues[] | undefined,
    /** The parsed object: a WeakRef, or the object itself with `keepParsedObjects`. */
    public ref: WeakRef<T> | T | undefined,
  ) {}
}

export class Store<T extends KubeObject> {
  private entries = new Map<string, Entry<T>>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** Indexes whose values live in `Entry.idx`, in slot order. */
  private readonly storedIndexes: string[] = [];
  private indices = new Map<string, Index<T>>();
  private readonly onIndexError: (index: string, obj: T, err: unknown) => void;
  private readonly freeze: boolean;
  private readonly strong: boolean;

  /** `options` may also be the index error callback alone (the original signature). */
  constructor(options: StoreOptions<T> | ((index: string, obj: T, err: unknown) => void) = {}) {
    const o = typeof options === 'function' ? { onIndexError: options } : options;
    this.onIndexError = o.onIndexError ?? (() => {});
    this.freeze = o.freezeObjects ?? false;
    this.strong = o.keepParsedObjects ?? false;
    this.indexers.set(NAMESPACE_INDEX, namespaceIndex);
    this.indices.set(NAMESPACE_INDEX, new Map());
    this.addIndex(OWNER_UID_INDEX, ownerUidIndex);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): T | undefined {
    const e = this.entries.get(key);
    return e ? this.materialize(e) : undefined;
  }

  list(): T[] {
    const out = new Array<T>(this.entries.size);
    let i = 0;
    for (const e of this.entries.values()) out[i++] = this.materialize(e);
    return out;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  hasIndex(name: string): boolean {
    return this.indexers.has(name);
  }

  indexNames(): string[] {
    return [...this.indexers.keys()];
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index named "${name}" (have: ${this.indexNames().join(', ')})`);
    const bucket = index.get(value);
    if (!bucket) return [];
    const out: T[] = [];
    for (const e of bucket.entries) out.push(this.materialize(e));
    return out;
  }

  /** Adds an index and builds it over the current content (parsing objects nobody holds). */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new Error(`index "${name}" already exists`);
    const slot = this.storedIndexes.length;
    const index: Index<T> = new Map();
    for (const e of this.entries.values()) {
      const vs = this.values(name, fn, this.materialize(e));
      if (vs.length === 0) continue;
      const stored = intern(index, e, vs);
      if (!e.idx) e.idx = new Array<IndexValues>(slot + 1).fill(undefined);
      else while (e.idx.length <= slot) e.idx.push(undefined);
      e.idx[slot] = stored;
    }
    this.indexers.set(name, fn);
    this.storedIndexes.push(name);
    this.indices.set(name, index);
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(obj: T): T | undefined {
    const key = storedKey(obj);
    const old = this.entries.get(key);
    const oldObj = old ? this.materialize(old) : undefined;
    if (old) this.unindex(key, old);
    const e = this.entry(obj, this.strong ? '' : compactJson(obj), true);
    this.entries.set(key, e);
    this.indexEntry(this.indices, key, e);
    return oldObj;
  }

  /** Removes by key; returns the removed object. */
  remove(key: string): T | undefined {
    const old = this.entries.get(key);
    if (!old) return undefined;
    const oldObj = this.materialize(old);
    this.discard(key);
    return oldObj;
  }

  /** Removes by key without producing the removed object (no parse); returns whether it was there. */
  discard(key: string): boolean {
    const old = this.entries.get(key);
    if (!old) return false;
    this.unindex(key, old);
    this.entries.delete(key);
    return true;
  }

  /**
   * Replaces everything with `objs` at once and returns what changed. An object whose
   * resourceVersion did not change keeps its old entry (and instance, while anyone holds it) and is
   * reported nowhere. A key whose UID
   * changed (deleted and re-created while we were not watching) is reported as a delete plus an add.
   */
  replace(objs: T[]): ReplaceDiff<T> {
    const entries = new Map<string, Entry<T>>();
    const diff: ReplaceDiff<T> = { added: [], updated: [], deleted: [] };
    for (const obj of objs) {
      const key = storedKey(obj);
      const old = this.entries.get(key);
      const json = this.strong ? '' : compactJson(obj);
      if (!old) diff.added.push(obj);
      // Same text, same resourceVersion and UID: skip the parse the comparison below would need.
      else if (!this.strong && old.json === json) {
        entries.set(key, old);
        continue;
      } else {
        const oldObj = this.materialize(old);
        if (oldObj.metadata.uid && obj.metadata.uid && oldObj.metadata.uid !== obj.metadata.uid) {
          diff.deleted.push(oldObj);
          diff.added.push(obj);
        } else if (oldObj.metadata.resourceVersion !== obj.metadata.resourceVersion) diff.updated.push([oldObj, obj]);
        else {
          entries.set(key, old);
          continue;
        }
      }
      entries.set(key, this.entry(obj, json, false));
    }
    for (const [key, old] of this.entries) if (!entries.has(key)) diff.deleted.push(this.materialize(old));

    const indices = new Map<string, Index<T>>();
    for (const name of this.indexers.keys()) indices.set(name, new Map());
    for (const [key, e] of entries) this.indexEntry(indices, key, e);
    this.entries = entries;
    this.indices = indices;
    return diff;
  }

  /** The parsed object: the live instance if anyone still holds it, else a fresh parse. */
  private materialize(e: Entry<T>): T {
    if (this.strong) return e.ref as T;
    const live = (e.ref as WeakRef<T> | undefined)?.deref();
    if (live) return live;
    const obj = JSON.parse(e.json) as T;
    if (this.freeze) deepFreeze(obj);
    e.ref = new WeakRef(obj);
    return obj;
  }

  /**
   * A new entry with the (not yet interned) values of every stored index. `share`: hand out `obj`
   * itself on the next reads while it lives. A relist does not share: its objects go to the handlers
   * anyway, a WeakRef pins its target until the current macrotask ends (so a 50,000-object sync would
   * hold every parsed object and its text at once for longer), and a cleared WeakRef still costs
   * ~32 bytes per object until the next read replaces it.
   */
  private entry(obj: T, json: string, share: boolean): Entry<T> {
    let idx: IndexValues[] | undefined;
    for (let slot = 0; slot < this.storedIndexes.length; slot++) {
      const name = this.storedIndexes[slot]!;
      const vs = this.values(name, this.indexers.get(name)!, obj);
      if (vs.length === 0) continue;
      idx ??= new Array<IndexValues>(this.storedIndexes.length).fill(undefined);
      idx[slot] = vs.length === 1 ? vs[0] : vs;
    }
    return new Entry<T>(json, idx, this.strong ? obj : share ? new WeakRef(obj) : undefined);
  }

  private values(name: string, fn: IndexFunc<T>, obj: T): string[] {
    try {
      return fn(obj);
    } catch (e) {
      this.onIndexError(name, obj, e);
      return [];
    }
  }

  /** Adds `key` to every index it belongs to, swapping the entry's values for the buckets' shared strings. */
  private indexEntry(indices: Map<string, Index<T>>, key: string, e: Entry<T>): void {
    const ns = namespaceOfKey(key);
    if (ns !== undefined) internOne(indices.get(NAMESPACE_INDEX)!, e, ns);
    if (!e.idx) return;
    for (let slot = 0; slot < e.idx.length; slot++) {
      const v = e.idx[slot];
      if (v === undefined) continue;
      e.idx[slot] = intern(indices.get(this.storedIndexes[slot]!)!, e, v);
    }
  }

  private unindex(key: string, e: Entry<T>): void {
    const ns = namespaceOfKey(key);
    if (ns !== undefined) drop(this.indices.get(NAMESPACE_INDEX)!, e, ns);
    if (!e.idx) return;
    for (let slot = 0; slot < e.idx.length; slot++) {
      const v = e.idx[slot];
      if (v === undefined) continue;
      const index = this.indices.get(this.storedIndexes[slot]!)!;
      if (typeof v === 'string') drop(index, e, v);
      else for (const x of v) drop(index, e, x);
    }
  }
}

/**
 * The key, flat. V8 builds `${namespace}/${name}` as a rope (ConsString) that keeps both halves alive
 * as separate strings; ToNumber flattens a string in place (the `flatstr` idiom) and the GC then drops
 * the rope, which saves ~32 bytes per cached object.
 */
function storedKey(obj: KubeObject): string {
  const key = objectKey(obj);
  Number(key);
  return key;
}

/** Namespaces and names cannot contain "/", so the key spells the namespace index's only value. */
function namespaceOfKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}

function intern<T extends object>(index: Index<T>, e: Entry<T>, v: string | readonly string[]): IndexValues {
  if (typeof v === 'string') return internOne(index, e, v);
  const out: string[] = [];
  for (const x of v) {
    const shared = internOne(index, e, x);
    if (!out.includes(shared)) out.push(shared);
  }
  return out.length === 0 ? undefined : out.length === 1 ? out[0] : out;
}

function internOne<T extends object>(index: Index<T>, e: Entry<T>, v: string): string {
  let bucket = index.get(v);
  if (!bucket) index.set(v, (bucket = { value: v, entries: new Set() }));
  bucket.entries.add(e);
  return bucket.value;
}

function drop<T extends object>(index: Index<T>, e: Entry<T>, v: string): void {
  const bucket = index.get(v);
  if (!bucket) return;
  bucket.entries.delete(e);
  if (bucket.entries.size === 0) index.delete(v);
}

/** Characters V8 cannot keep in a one-byte string. */
const WIDE = /[\u0100-\uffff]/;
const WIDE_ALL = /[\u0100-\uffff]/g;

/**
 * The object's JSON text, kept in V8's one-byte representation where that is smaller: a single
 * character above U+00FF makes the whole string two bytes per character, so such characters are
 * written as \uXXXX escapes (JSON.parse reads them back unchanged) unless most of the text is wide.
 */
export function compactJson(obj: unknown): string {
  const json = JSON.stringify(obj);
  if (!WIDE.test(json)) return json;
  const escaped = json.replace(WIDE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length < json.length * 2 ? escaped : json;
}
