// In-memory Storage: a Map per resource prefix, a revision counter and a ring of recent changes.
import type { KubeObject } from '../../apimachinery/meta/index.ts';
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionCompactedError,
  RevisionMismatchError,
  type Change,
  type ChangeListener,
  type Storage,
  type StoredObject,
  type Watcher,
} from './storage.ts';

export interface MemoryStorageOptions {
  /** How many changes are kept for watches and paged lists to resume from. Default 10,000. */
  historySize?: number;
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

function stamp(obj: KubeObject, revision: number): string {
  obj.metadata.resourceVersion = String(revision);
  return JSON.stringify(obj);
}

export class MemoryStorage implements Storage {
  private revision = 1;
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  private readonly history: Change[] = [];
  private historyStart = 0; // index of the oldest kept change in the ring
  private compactedThrough = 1; // every change with revision <= this is forgotten
  private readonly historySize: number;
  private readonly subscriptions = new Set<Subscription>();
  private readonly sortedKeys = new Map<string, string[]>();

  constructor(options: MemoryStorageOptions = {}) {
    this.historySize = Math.max(1, options.historySize ?? 10_000);
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
    const resourcePrefix = resourcePrefixOf(prefix);
    const bucket = this.buckets.get(resourcePrefix);
    if (!bucket) return [];
    const keys = this.sortedKeysOf(resourcePrefix, bucket);
    // Keys are sorted, so one namespace's keys are one contiguous run starting at the lower bound.
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: StoredObject[] = [];
    for (let i = lo; i < keys.length && keys[i].startsWith(prefix); i++) out.push(bucket.get(keys[i])!);
    return out;
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

  listAt(prefix: string, revision: number): StoredObject[] {
    if (revision >= this.revision) return this.list(prefix);
    if (revision < this.compactedThrough) throw new RevisionCompactedError(revision, this.compactedThrough);
    // Undo, newest first, every change made after `revision`.
    const state = new Map<string, StoredObject>();
    for (const o of this.list(prefix)) state.set(o.key, o);
    const changes = this.changesAfter(revision);
    for (let i = changes.length - 1; i >= 0; i--) {
      const c = changes[i];
      if (!c.key.startsWith(prefix)) continue;
      if (c.type === 'ADDED') state.delete(c.key);
      else if (c.prevJson !== undefined)
        state.set(c.key, { key: c.key, revision: c.prevRevision ?? 0, json: c.prevJson });
    }
    return [...state.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  create(key: string, obj: KubeObject): StoredObject {
    const prefix = resourcePrefixOf(key);
    let bucket = this.buckets.get(prefix);
    if (!bucket) this.buckets.set(prefix, (bucket = new Map()));
    if (bucket.has(key)) throw new KeyExistsError(key);
    const revision = this.revision + 1;
    const stored: StoredObject = { key, revision, json: stamp(obj, revision) };
    this.revision = revision;
    bucket.set(key, stored);
    this.sortedKeys.delete(prefix);
    this.record({ type: 'ADDED', key, revision, json: stored.json });
    return stored;
  }

  update(key: string, obj: KubeObject, expectedRevision: number): StoredObject {
    const bucket = this.buckets.get(resourcePrefixOf(key));
    const current = bucket?.get(key);
    if (!bucket || !current) throw new KeyNotFoundError(key);
    if (current.revision !== expectedRevision) throw new RevisionMismatchError(key);
    const revision = this.revision + 1;
    const stored: StoredObject = { key, revision, json: stamp(obj, revision) };
    this.revision = revision;
    bucket.set(key, stored);
    this.record({
      type: 'MODIFIED',
      key,
      revision,
      json: stored.json,
      prevJson: current.json,
      prevRevision: current.revision,
    });
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
    this.revision = revision;
    bucket.delete(key);
    this.sortedKeys.delete(resourcePrefixOf(key));
    this.record({ type: 'DELETED', key, revision, json, prevJson: current.json, prevRevision: current.revision });
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
    this.history.length = 0;
    this.historyStart = 0;
    this.compactedThrough = this.revision;
  }

  private changesAfter(revision: number): Change[] {
    const out: Change[] = [];
    const n = this.history.length;
    for (let i = 0; i < n; i++) {
      const c = this.history[(this.historyStart + i) % n];
      if (c.revision > revision) out.push(c);
    }
    return out;
  }

  private record(change: Change): void {
    if (this.history.length < this.historySize) {
      this.history.push(change);
    } else {
      const evicted = this.history[this.historyStart];
      this.history[this.historyStart] = change;
      this.historyStart = (this.historyStart + 1) % this.historySize;
      this.compactedThrough = evicted.revision;
    }
    for (const sub of this.subscriptions) {
      if (!change.key.startsWith(sub.prefix)) continue;
      try {
        sub.listener(change);
      } catch {
        // A failing watcher must not stop the write or the other watchers; it cleans itself up.
      }
    }
  }
}
