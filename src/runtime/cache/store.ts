// The informer's object store: objects by key plus secondary indexes. A relist swaps the whole
// content in one synchronous step and reports the differences, so readers never see half a relist.
import type { KubeObject } from '../client/types.ts';

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

type Index = Map<string, Set<string>>;

export class Store<T extends KubeObject> {
  private items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private indices = new Map<string, Index>();

  constructor(private readonly onIndexError: (index: string, obj: T, err: unknown) => void = () => {}) {
    this.addIndex(NAMESPACE_INDEX, namespaceIndex);
    this.addIndex(OWNER_UID_INDEX, ownerUidIndex);
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
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
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** Adds an index and builds it over the current content. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new Error(`index "${name}" already exists`);
    this.indexers.set(name, fn);
    const index: Index = new Map();
    for (const [key, obj] of this.items) this.indexInto(index, name, fn, key, obj);
    this.indices.set(name, index);
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexInto(this.indices.get(name)!, name, fn, key, obj);
    return old;
  }

  /** Removes by key; returns the removed object. */
  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /**
   * Replaces everything with `objs` at once and returns what changed. An object whose
   * resourceVersion did not change is kept as the old instance and reported nowhere. A key whose UID
   * changed (deleted and re-created while we were not watching) is reported as a delete plus an add.
   */
  replace(objs: T[]): ReplaceDiff<T> {
    const items = new Map<string, T>();
    const diff: ReplaceDiff<T> = { added: [], updated: [], deleted: [] };
    for (const obj of objs) {
      const key = objectKey(obj);
      const old = this.items.get(key);
      if (!old) diff.added.push(obj);
      else if (old.metadata.uid && obj.metadata.uid && old.metadata.uid !== obj.metadata.uid) {
        diff.deleted.push(old);
        diff.added.push(obj);
      } else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) diff.updated.push([old, obj]);
      else {
        items.set(key, old);
        continue;
      }
      items.set(key, obj);
    }
    for (const [key, old] of this.items) if (!items.has(key)) diff.deleted.push(old);

    const indices = new Map<string, Index>();
    for (const [name, fn] of this.indexers) {
      const index: Index = new Map();
      for (const [key, obj] of items) this.indexInto(index, name, fn, key, obj);
      indices.set(name, index);
    }
    this.items = items;
    this.indices = indices;
    return diff;
  }

  private values(name: string, fn: IndexFunc<T>, obj: T): string[] {
    try {
      return fn(obj);
    } catch (e) {
      this.onIndexError(name, obj, e);
      return [];
    }
  }

  private indexInto(index: Index, name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    for (const v of this.values(name, fn, obj)) {
      let set = index.get(v);
      if (!set) index.set(v, (set = new Set()));
      set.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const v of this.values(name, fn, obj)) {
        const set = index.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) index.delete(v);
      }
    }
  }
}
