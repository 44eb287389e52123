// In-memory Storage: a Map per resource prefix, a revision counter and a ring of recent changes.
import type { KubeObject } from '../../apimachinery/meta/index.ts';
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionCompactedError,
  RevisionMismatchError,
  type Change,
  type ChangeListener,
  type Page,
  type PageOptions,
  type Storage,
  type StoredObject,
  type Watcher,
} from './storage.ts';
import type { StorageJournal, StorageSnapshot } from './journal.ts';

export interface MemoryStorageOptions {
  /** How many changes are kept for watches and paged lists to resume from. Default 10,000. */
  historySize?: number;
  /**
   * How many bytes the kept changes may hold: each change's JSON (its object and its previous
   * state) and what is held on its behalf (`chargeHeld`: the watch lines encoded from it). Default
   * 256 MiB: without it, a client rewriting a large object fills the memory long before the count
   * bound is reached. Whichever bound is hit first evicts the oldest change.
   */
  historyBytes?: number;
  /** Persists every change before it is applied (a durable backend, sqlite.ts). */
  journal?: StorageJournal;
}

/** What a change's own JSON costs: its two texts, one byte per character as V8 stores them. */
function jsonBytes(c: Change): number {
  return c.json.length + (c.prevJson?.length ?? 0);
}

interface Subscription {
  prefix: string;
  listener: ChangeListener;
}

/** Keys are grouped by their resource prefix (`/<group>/<resource>/`) so a LIST scans one map. */
function resourcePrefixOf(key: string): string {
  let slashes = 0;
  for (let i = 0; i < key.length; i++) {
    if (key.charCodeAt(i) === 47 && ++slashes === 3) return key.slice(0, i + 1);
  }
  return key;
}

/** The first index of sorted `keys` where `before` turns false (it must be true, then false). */
function bisect(keys: string[], before: (key: string) => boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(keys[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function stamp(obj: KubeObject, revision: number): string {
  obj.metadata.resourceVersion = String(revision);
  return JSON.stringify(obj);
}

export class MemoryStorage implements Storage {
  private revision = 1;
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  // Kept changes, oldest first, from `historyStart` on; evicted slots are cleared at once (their
  // JSON must be freed) and the array is shortened in batches.
  private history: Array<Change | undefined> = [];
  private historyStart = 0;
  private historyByteCount = 0;
  private compactedThrough = 1; // every change with revision <= this is forgotten
  private readonly historySize: number;
  private readonly historyBytes: number;
  private readonly subscriptions = new Set<Subscription>();
  private readonly sortedKeys = new Map<string, string[]>();
  /** Bytes held on behalf of kept changes besides their JSON (chargeHeld). */
  private readonly held = new WeakMap<Change, number>();

  private readonly journal?: StorageJournal;

  constructor(options: MemoryStorageOptions = {}) {
    this.journal = options.journal;
    this.historySize = Math.max(1, options.historySize ?? 10_000);
    this.historyBytes = Math.max(1, options.historyBytes ?? 256 * 1024 * 1024);
  }

  /** The kept history's size, in changes and in bytes of JSON. */
  historyUsage(): { changes: number; bytes: number } {
    return { changes: this.history.length - this.historyStart, bytes: this.historyByteCount };
  }

  currentRevision(): number {
    return this.revision;
  }

  oldestRevision(): number {
    return this.compactedThrough;
  }

  get(key: string): StoredObject | undefined {
    return this.buckets.get(resourcePrefixOf(key))?.get(key);
  }

  count(prefix: string): number {
    const bucket = this.buckets.get(resourcePrefixOf(prefix));
    if (!bucket) return 0;
    if (bucket.size === 0 || prefix.length === resourcePrefixOf(prefix).length) return bucket.size;
    let n = 0;
    for (const key of bucket.keys()) if (key.startsWith(prefix)) n++;
    return n;
  }

  list(prefix: string): StoredObject[] {
    return this.listPage(prefix).items;
  }

  listPage(prefix: string, page: PageOptions = {}): Page {
    const revision = page.revision ?? this.revision;
    if (revision < this.revision && revision < this.compactedThrough) {
      throw new RevisionCompactedError(revision, this.compactedThrough);
    }
    const resourcePrefix = resourcePrefixOf(prefix);
    const bucket = this.buckets.get(resourcePrefix);
    const keys = bucket ? this.sortedKeysOf(resourcePrefix, bucket) : [];
    // Keys are sorted, so the keys under `prefix` after `after` are one contiguous run [lo, hi).
    const after = page.after !== undefined && page.after >= prefix ? page.after : undefined;
    const hi = bisect(keys, (k) => k < prefix || k.slice(0, prefix.length) === prefix);
    let lo = Math.min(
      hi,
      bisect(keys, (k) => k < prefix || (after !== undefined && k <= after)),
    );
    const limit = page.limit !== undefined && page.limit > 0 ? page.limit : Infinity;
    const items: StoredObject[] = [];
    // Each key changed since `revision` takes its state from before its oldest later change; every
    // other key is as it is now. Any write anywhere moves the revision on, so every page after
    // the first of a paged LIST is served here: the cost is the changes and the page, never the
    // whole resource.
    const before = revision < this.revision ? this.statesAt(prefix, revision, after) : undefined;
    if (!before || before.size === 0) {
      for (; lo < hi && items.length < limit; lo++) items.push(bucket!.get(keys[lo])!);
      return { items, remaining: hi - lo };
    }
    const restored = [...before.values()]
      .filter((o): o is StoredObject => o !== null)
      .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    let total = hi - lo + restored.length;
    for (const key of before.keys()) if (bucket?.has(key)) total--;
    let r = 0;
    while (items.length < limit && (lo < hi || r < restored.length)) {
      if (r < restored.length && (lo >= hi || restored[r].key <= keys[lo])) {
        if (lo < hi && restored[r].key === keys[lo]) lo++;
        items.push(restored[r++]);
      } else {
        const key = keys[lo++];
        if (!before.has(key)) items.push(bucket!.get(key)!);
      }
    }
    return { items, remaining: total - items.length };
  }

  /** The keys under `prefix` (after `after`) changed since `revision`, each with its state then (null: absent). */
  private statesAt(prefix: string, revision: number, after: string | undefined): Map<string, StoredObject | null> {
    const states = new Map<string, StoredObject | null>();
    const changes = this.changesAfter(revision);
    for (let i = changes.length - 1; i >= 0; i--) {
      const c = changes[i];
      if (!c.key.startsWith(prefix) || (after !== undefined && c.key <= after)) continue;
      if (c.type === 'ADDED') states.set(c.key, null);
      else if (c.prevJson !== undefined)
        states.set(c.key, { key: c.key, revision: c.prevRevision ?? 0, json: c.prevJson });
    }
    return states;
  }

  /**
   * The bucket's keys in order, kept until a create or delete changes the key set: paged lists
   * of large resources would otherwise sort every key for every page.
   */
  private sortedKeysOf(resourcePrefix: string, bucket: Map<string, StoredObject>): string[] {
    let keys = this.sortedKeys.get(resourcePrefix);
    if (!keys) {
      keys = [...bucket.keys()].sort();
      this.sortedKeys.set(resourcePrefix, keys);
    }
    return keys;
  }

  /**
   * A new key goes into its resource's sorted keys where it belongs: one bisection and one move,
   * where sorting them all again at the next LIST costs n log n string compares (at 100,000 pods,
   * every pod created would have paid for it).
   */
  private keyAdded(resourcePrefix: string, key: string): void {
    const keys = this.sortedKeys.get(resourcePrefix);
    keys?.splice(
      bisect(keys, (k) => k < key),
      0,
      key,
    );
  }

  private keyRemoved(resourcePrefix: string, key: string): void {
    const keys = this.sortedKeys.get(resourcePrefix);
    if (!keys) return;
    const at = bisect(keys, (k) => k < key);
    if (keys[at] === key) keys.splice(at, 1);
  }

  listAt(prefix: string, revision: number): StoredObject[] {
    return this.listPage(prefix, { revision }).items;
  }

  create(key: string, obj: KubeObject): StoredObject {
    const prefix = resourcePrefixOf(key);
    let bucket = this.buckets.get(prefix);
    if (!bucket) this.buckets.set(prefix, (bucket = new Map()));
    if (bucket.has(key)) throw new KeyExistsError(key);
    const revision = this.revision + 1;
    const stored: StoredObject = { key, revision, json: stamp(obj, revision) };
    const change: Change = { type: 'ADDED', key, revision, json: stored.json };
    this.journal?.append(change);
    this.revision = revision;
    bucket.set(key, stored);
    this.keyAdded(prefix, key);
    this.record(change);
    return stored;
  }

  update(key: string, obj: KubeObject, expectedRevision: number): StoredObject {
    const bucket = this.buckets.get(resourcePrefixOf(key));
    const current = bucket?.get(key);
    if (!bucket || !current) throw new KeyNotFoundError(key);
    if (current.revision !== expectedRevision) throw new RevisionMismatchError(key);
    const revision = this.revision + 1;
    const stored: StoredObject = { key, revision, json: stamp(obj, revision) };
    const change: Change = {
      type: 'MODIFIED',
      key,
      revision,
      json: stored.json,
      prevJson: current.json,
      prevRevision: current.revision,
    };
    this.journal?.append(change);
    this.revision = revision;
    bucket.set(key, stored);
    this.record(change);
    return stored;
  }

  delete(key: string, expectedRevision: number): StoredObject {
    const bucket = this.buckets.get(resourcePrefixOf(key));
    const current = bucket?.get(key);
    if (!bucket || !current) throw new KeyNotFoundError(key);
    if (current.revision !== expectedRevision) throw new RevisionMismatchError(key);
    const revision = this.revision + 1;
    // Watchers see the deleted object's last state stamped with the deletion's revision, as etcd3 does.
    const obj = JSON.parse(current.json) as KubeObject;
    const json = stamp(obj, revision);
    const change: Change = {
      type: 'DELETED',
      key,
      revision,
      json,
      prevJson: current.json,
      prevRevision: current.revision,
    };
    this.journal?.append(change);
    this.revision = revision;
    bucket.delete(key);
    this.keyRemoved(resourcePrefixOf(key), key);
    this.record(change);
    return { key, revision, json };
  }

  watch(prefix: string, fromRevision: number, listener: ChangeListener): Watcher {
    if (fromRevision < this.compactedThrough) throw new RevisionCompactedError(fromRevision, this.compactedThrough);
    for (const c of this.changesAfter(fromRevision)) if (c.key.startsWith(prefix)) listener(c);
    const sub: Subscription = { prefix, listener };
    this.subscriptions.add(sub);
    return { stop: () => this.subscriptions.delete(sub) };
  }

  compact(): void {
    this.journal?.compacted(this.revision);
    this.history = [];
    this.historyStart = 0;
    this.historyByteCount = 0;
    this.compactedThrough = this.revision;
  }

  /**
   * Loads what a durable backend kept into this empty store (before any watch): the history goes
   * through the same bounds as live changes, so a smaller bound forgets more of it.
   */
  restore(snapshot: StorageSnapshot): void {
    if (this.revision !== 1 || this.buckets.size > 0 || this.subscriptions.size > 0)
      throw new Error('restore needs an empty store');
    for (const o of snapshot.objects) {
      const prefix = resourcePrefixOf(o.key);
      let bucket = this.buckets.get(prefix);
      if (!bucket) this.buckets.set(prefix, (bucket = new Map()));
      bucket.set(o.key, o);
    }
    for (const c of snapshot.history) this.record(c);
    this.revision = Math.max(1, snapshot.revision);
    this.compactedThrough = Math.max(this.compactedThrough, snapshot.compactedThrough);
  }

  /**
   * Applies a change another store committed (etcd/storage.ts feeds its index this way): the
   * revision is the committed one, not the next of this store's counter. `stored` is the object
   * after the change; absent for DELETED.
   */
  protected replicate(change: Change, stored: StoredObject | undefined): void {
    const prefix = resourcePrefixOf(change.key);
    let bucket = this.buckets.get(prefix);
    if (stored) {
      if (!bucket) this.buckets.set(prefix, (bucket = new Map()));
      if (!bucket.has(change.key)) this.keyAdded(prefix, change.key);
      bucket.set(change.key, stored);
    } else if (bucket?.delete(change.key)) this.keyRemoved(prefix, change.key);
    this.advanceTo(change.revision);
    this.record(change);
  }

  /** Moves the revision on without a change (a replica saw a write that holds no object). */
  protected advanceTo(revision: number): void {
    if (revision > this.revision) this.revision = revision;
  }

  /** Every stored key, in no order (a replica compares them with a fresh read of its source). */
  protected keys(): string[] {
    const out: string[] = [];
    for (const bucket of this.buckets.values()) for (const key of bucket.keys()) out.push(key);
    return out;
  }

  /**
   * Counts `bytes` held on behalf of `source` (a watch line encoded from it) against the history's
   * byte bound while `source` is a kept change; anything else (a stored object, an evicted change)
   * is not history and is ignored.
   */
  chargeHeld(source: object, bytes: number): void {
    const change = source as Change;
    if (typeof change.revision !== 'number' || change.revision <= this.compactedThrough) return;
    const i = this.indexAfter(change.revision - 1);
    for (let j = i; j < this.history.length && this.history[j]!.revision === change.revision; j++) {
      if (this.history[j] !== change) continue;
      this.held.set(change, (this.held.get(change) ?? 0) + bytes);
      this.historyByteCount += bytes;
      this.evict();
      return;
    }
  }

  private changeBytes(c: Change): number {
    return jsonBytes(c) + (this.held.get(c) ?? 0);
  }

  private changesAfter(revision: number): Change[] {
    return this.history.slice(this.indexAfter(revision)) as Change[];
  }

  /** Index of the first kept change after `revision`: revisions ascend, so by bisection. */
  private indexAfter(revision: number): number {
    let lo = this.historyStart;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private record(change: Change): void {
    this.history.push(change);
    this.historyByteCount += this.changeBytes(change);
    this.evict();
    for (const sub of this.subscriptions) {
      if (!change.key.startsWith(sub.prefix)) continue;
      try {
        sub.listener(change);
      } catch {
        // A failing watcher must not stop the write or the other watchers; it cleans itself up.
      }
    }
  }
  /** Evicting a change forgets its revision: watches and snapshot reads from it answer 410. */
  private evict(): void {
    while (
      this.historyStart < this.history.length &&
      (this.history.length - this.historyStart > this.historySize || this.historyByteCount > this.historyBytes)
    ) {
      const evicted = this.history[this.historyStart]!;
      this.history[this.historyStart++] = undefined;
      this.historyByteCount -= this.changeBytes(evicted);
      this.compactedThrough = evicted.revision;
    }
    if (this.historyStart > 1024 && this.historyStart * 2 > this.history.length) {
      this.history = this.history.slice(this.historyStart);
      this.historyStart = 0;
    }
  }
}
