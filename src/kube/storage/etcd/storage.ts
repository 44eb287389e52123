// Storage in etcd: every write is a conditional etcd transaction (so several API servers in front
// of one etcd never overwrite each other), and every read and watch is served from an in-memory
// index that one etcd watch keeps current — kube-apiserver's watch cache, in the same process.
// resourceVersions are etcd's revisions, so they stay monotonic across restarts and servers.
//
// The Storage interface is synchronous; the etcd client runs in a worker and this thread waits
// for each write's answer (sync-channel.ts), as better-sqlite3 does for the SQLite store. A write
// returns once the index holds it and every change before it; reads take whatever the watch has
// queued first, so a server reads its own writes and, within the watch's delay (under a
// millisecond on one host), everyone else's.
//
// Objects are stored as their JSON without `metadata.resourceVersion`, as kube-apiserver stores
// them (the revision is etcd's mod_revision), so etcdctl shows the same data for both.
import type { KubeObject } from '../../../apimachinery/meta/index.ts';
import { MemoryStorage, type MemoryStorageOptions } from '../memory.ts';
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Change,
  type ChangeListener,
  type Page,
  type PageOptions,
  type StoredObject,
  type Watcher,
} from '../storage.ts';
import { SLOT_WATCHING, type WireEvent, type WorkerRequest, type WorkerResponse } from './protocol.ts';
import { SyncCallTimeoutError, SyncChannel } from './sync-channel.ts';
import type { EtcdWorkerData } from './worker.ts';

export interface EtcdStorageOptions extends Omit<MemoryStorageOptions, 'journal'> {
  /** Client URLs of the etcd cluster, e.g. `http://127.0.0.1:2379` (kube-apiserver's --etcd-servers). */
  endpoints: string[];
  /** Prefix of every key, as kube-apiserver's --etcd-prefix. Default `/registry`. */
  prefix?: string;
  /** How long one etcd call may take before the request fails. Default 10 s. */
  requestTimeoutMs?: number;
  /** How long connecting and reading the first page of objects may take. Default 60 s. */
  openTimeoutMs?: number;
  /**
   * How often etcd's own history is compacted, keeping at least one interval of it (kube's
   * --etcd-compaction-interval). Default 5 min; 0 never compacts. Several servers compact once.
   */
  compactionIntervalMs?: number;
  /** Objects per etcd range request when the store is read whole. Default 1,000. */
  listPageSize?: number;
  /**
   * How long a broken watch waits before it starts again, from the last revision it delivered
   * (or, when etcd compacted that away meanwhile, from a fresh read of every object). Default 500 ms.
   */
  rewatchDelayMs?: number;
}

/** etcd cannot be reached, or refused what was asked. */
export class EtcdStorageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EtcdStorageError';
  }
}

// The worker beside this module: worker.ts from the sources, worker.js from the build (a URL is not
// an import, so the build does not rewrite its extension).
const WORKER = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/** The stored text with the revision it was written at, as the index and clients see it. */
function stamped(value: string, revision: number): string {
  const obj = JSON.parse(value) as KubeObject;
  obj.metadata.resourceVersion = String(revision);
  return JSON.stringify(obj);
}

function forEtcd(obj: KubeObject): string {
  const { resourceVersion: _, ...metadata } = obj.metadata;
  return JSON.stringify({ ...obj, metadata });
}

export class EtcdStorage extends MemoryStorage {
  readonly endpoints: readonly string[];
  private readonly channel: SyncChannel<WorkerRequest, WorkerResponse>;
  /** Events taken from the worker so far (wrapping as the worker's count does). */
  private taken = 0;
  /** Events taken but not applied yet (a watcher wrote while the index was being fed). */
  private readonly pending: WireEvent[] = [];
  private applying = false;
  private closed = false;

  /** Connects and reads every object; throws EtcdStorageError when etcd does not answer. */
  constructor(options: EtcdStorageOptions) {
    super(options);
    this.endpoints = [...options.endpoints];
    const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    const data: EtcdWorkerData = {
      endpoints: [...this.endpoints],
      prefix: options.prefix ?? '/registry',
      requestTimeoutMs,
      compactionIntervalMs: options.compactionIntervalMs ?? 5 * 60_000,
      listPageSize: options.listPageSize ?? 1000,
      rewatchDelayMs: options.rewatchDelayMs ?? 500,
    };
    this.channel = new SyncChannel<WorkerRequest, WorkerResponse>(
      WORKER,
      { ...data },
      // The worker gives up on etcd first, so its answer (not this side's timeout) is what fails.
      requestTimeoutMs + 5_000,
      (late) => this.apply(late.events),
      () => this.catchUp(),
      (err) => {
        this.closed = true;
        if (err) this.workerFailure = err;
      },
    );
    try {
      this.load(options.openTimeoutMs ?? 60_000);
    } catch (err) {
      this.closed = true;
      void this.channel.terminate();
      throw new EtcdStorageError(
        `cannot open the cluster store in etcd at ${this.endpoints.join(',')}: ${(err as Error).message}`,
      );
    }
  }

  /** Reads every object into the index, stamping each page while the worker fetches the next. */
  private load(openTimeoutMs: number): void {
    const page = (op: 'open' | 'page') => {
      const res = this.ask({ op }, op === 'open' ? openTimeoutMs : undefined, true);
      if (!res.ok || !res.page) throw new Error('error' in res ? res.error : 'etcd answered no objects');
      return res.page;
    };
    const first = page('open');
    function* objects(): Generator<StoredObject> {
      for (let p = first; ; p = page('page')) {
        for (const o of p.objects) yield { key: o.key, revision: o.revision, json: stamped(o.value, o.revision) };
        if (!p.more) return;
      }
    }
    this.restore({ revision: first.revision, compactedThrough: first.revision, objects: objects(), history: [] });
  }

  private workerFailure: Error | undefined;

  /** Whether etcd's watch feeds the index (readyz): false while it is broken, and once closed. */
  healthy(): boolean {
    return !this.closed && Atomics.load(this.channel.shared, SLOT_WATCHING) === 1;
  }

  override currentRevision(): number {
    this.catchUp();
    return super.currentRevision();
  }

  override get(key: string): StoredObject | undefined {
    this.catchUp();
    return super.get(key);
  }

  override listPage(prefix: string, page?: PageOptions): Page {
    this.catchUp();
    return super.listPage(prefix, page);
  }

  override count(prefix: string): number {
    this.catchUp();
    return super.count(prefix);
  }

  override watch(prefix: string, fromRevision: number, listener: ChangeListener): Watcher {
    this.catchUp();
    return super.watch(prefix, fromRevision, listener);
  }

  override create(key: string, obj: KubeObject): StoredObject {
    const res = this.ask({ op: 'create', key, value: forEtcd(obj) });
    return this.committed(key, res, obj);
  }

  override update(key: string, obj: KubeObject, expectedRevision: number): StoredObject {
    const res = this.ask({ op: 'update', key, value: forEtcd(obj), expected: expectedRevision });
    return this.committed(key, res, obj);
  }

  override delete(key: string, expectedRevision: number): StoredObject {
    const before = super.get(key);
    const res = this.ask({ op: 'delete', key, expected: expectedRevision });
    const revision = this.revisionOf(key, res);
    const change = this.changeAt(key, revision);
    if (change) return { key, revision, json: change.json };
    // The index forgot the change already (a history bound smaller than one object).
    return { key, revision, json: before ? stamped(before.json, revision) : JSON.stringify({ metadata: {} }) };
  }

  /** Compacts etcd up to this store's revision, and forgets the index's history as memory does. */
  override compact(): void {
    this.ask({ op: 'compact', revision: this.currentRevision() });
    super.compact();
  }

  /** Stops the watch and the client. Later writes fail; reads answer from the index as it was. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      this.ask({ op: 'close' }, 5_000);
    } catch {
      // Closing anyway.
    }
    this.closed = true;
    await this.channel.terminate();
  }

  /** Takes what the watch queued, if anything. */
  private catchUp(): void {
    if (this.closed || this.applying) return;
    if (this.channel.queued() === this.taken) return;
    this.ask({ op: 'drain' });
  }

  private ask(request: WorkerRequest, timeoutMs?: number, opening = false): WorkerResponse {
    if (this.closed && !opening) {
      throw new EtcdStorageError(
        `the etcd store is closed${this.workerFailure ? `: ${this.workerFailure.message}` : ''}`,
      );
    }
    let res: WorkerResponse;
    try {
      res = this.channel.call(request, timeoutMs);
    } catch (err) {
      if (err instanceof SyncCallTimeoutError)
        throw new EtcdStorageError(`etcd at ${this.endpoints.join(',')} did not answer ${request.op} in time`);
      throw err;
    }
    this.apply(res.events);
    if (!res.ok && 'error' in res) throw new EtcdStorageError(`etcd ${request.op} failed: ${res.error}`);
    return res;
  }

  private revisionOf(key: string, res: WorkerResponse): number {
    if (res.ok && res.revision !== undefined) return res.revision;
    if (!res.ok && 'refusal' in res) {
      if (res.refusal === 'exists') throw new KeyExistsError(key);
      if (res.refusal === 'not-found') throw new KeyNotFoundError(key);
      throw new RevisionMismatchError(key);
    }
    throw new EtcdStorageError('etcd answered a write without its revision');
  }

  private committed(key: string, res: WorkerResponse, obj: KubeObject): StoredObject {
    const revision = this.revisionOf(key, res);
    const current = super.get(key);
    if (current && current.revision === revision) return current;
    const change = this.changeAt(key, revision);
    if (change) return { key, revision, json: change.json };
    obj.metadata.resourceVersion = String(revision);
    return { key, revision, json: JSON.stringify(obj) };
  }

  /** The change this store's index recorded for `key` at `revision`, while the history keeps it. */
  private changeAt(key: string, revision: number): Change | undefined {
    if (revision - 1 < super.oldestRevision()) return undefined;
    let found: Change | undefined;
    super
      .watch(key, revision - 1, (c) => {
        if (c.key === key && c.revision === revision) found = c;
      })
      .stop();
    return found;
  }

  /**
   * Feeds the index in etcd's order. A watcher that reads or writes while it is being fed gets
   * the index as it is; what its own call took is applied after the events before it.
   */
  private apply(events: WireEvent[]): void {
    if (events.length === 0) return;
    this.pending.push(...events);
    this.taken = (this.taken + events.length) | 0;
    if (this.applying) return;
    this.applying = true;
    try {
      for (let i = 0; i < this.pending.length; i++) this.applyOne(this.pending[i]);
    } finally {
      this.pending.length = 0;
      this.applying = false;
    }
  }

  private applyOne(e: WireEvent): void {
    if (e.type === 'reset') return this.reset(e);
    const before = super.get(e.key);
    if (e.type === 'put') {
      const json = stamped(e.value ?? '{}', e.revision);
      const stored: StoredObject = { key: e.key, revision: e.revision, json };
      const change: Change = before
        ? {
            type: 'MODIFIED',
            key: e.key,
            revision: e.revision,
            json,
            prevJson: before.json,
            prevRevision: before.revision,
          }
        : { type: 'ADDED', key: e.key, revision: e.revision, json };
      this.replicate(change, stored);
      return;
    }
    if (!before) return this.advanceTo(e.revision);
    // Watchers see a deleted object's last state at the deletion's revision, as with memory.
    const json = stamped(before.json, e.revision);
    this.replicate(
      { type: 'DELETED', key: e.key, revision: e.revision, json, prevJson: before.json, prevRevision: before.revision },
      undefined,
    );
  }

  /** The index becomes a fresh read of etcd: what differs is told to watchers as changes at its revision. */
  private reset(e: WireEvent): void {
    const fresh = new Map((e.objects ?? []).map((o) => [o.key, o]));
    for (const key of this.keys()) {
      if (!fresh.has(key)) this.applyOne({ type: 'delete', key, revision: e.revision });
    }
    for (const o of fresh.values()) {
      const before = super.get(o.key);
      if (before?.revision === o.revision) continue;
      const json = stamped(o.value, o.revision);
      const change: Change = before
        ? {
            type: 'MODIFIED',
            key: o.key,
            revision: e.revision,
            json,
            prevJson: before.json,
            prevRevision: before.revision,
          }
        : { type: 'ADDED', key: o.key, revision: e.revision, json };
      this.replicate(change, { key: o.key, revision: o.revision, json });
    }
    this.advanceTo(e.revision);
  }
}
