// core/v1 Events expire a fixed time after their last write, as kube-apiserver's event TTL
// (an etcd lease on every Event write, one hour by default) makes them. Expiry happens below the
// API, like a lease running out: no admission, no finalizers, and watchers see DELETED.
import type { Change, Storage, Watcher } from '../../storage/storage.ts';
import { KeyNotFoundError, RevisionMismatchError } from '../../storage/storage.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';

const PREFIX = '/core/events/';

export interface EventTtlOptions {
  /** How long an Event lives after its last write. Default 3600 s. */
  ttlSeconds?: number;
  /** How often expired Events are looked for. Default: every minute, or the TTL when shorter. */
  intervalMs?: number;
  now?: () => number;
}

function latestTimestamp(obj: JsonObject): number | undefined {
  const candidates: Array<JsonValue | undefined> = [
    obj.lastTimestamp,
    obj.eventTime,
    (obj.series as JsonObject | undefined)?.lastObservedTime,
    (obj.metadata as JsonObject | undefined)?.creationTimestamp,
  ];
  for (const m of ((obj.metadata as JsonObject | undefined)?.managedFields as JsonObject[] | undefined) ?? []) {
    candidates.push(m.time);
  }
  let latest: number | undefined;
  for (const c of candidates) {
    const ms = typeof c === 'string' ? Date.parse(c) : NaN;
    if (!Number.isNaN(ms) && (latest === undefined || ms > latest)) latest = ms;
  }
  return latest;
}

export class EventTtlController {
  private readonly ttlMs: number;
  private readonly intervalMs: number;
  private readonly now: () => number;
  /** Storage key -> when its last write was seen. */
  private readonly lastWrite = new Map<string, number>();
  private watcher?: Watcher;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly storage: Storage,
    options: EventTtlOptions = {},
  ) {
    this.ttlMs = (options.ttlSeconds ?? 3600) * 1000;
    this.intervalMs = options.intervalMs ?? Math.max(50, Math.min(60_000, this.ttlMs));
    this.now = options.now ?? Date.now;
  }

  start(): void {
    const revision = this.storage.currentRevision();
    // Events already stored (a storage handed in from an earlier run) get their lease back from
    // the newest time they carry; nothing better survives a restart.
    for (const item of this.storage.list(PREFIX)) {
      const ts = latestTimestamp(JSON.parse(item.json) as JsonObject);
      this.lastWrite.set(item.key, Math.min(ts ?? this.now(), this.now()));
    }
    this.watcher = this.storage.watch(PREFIX, revision, (c) => this.observe(c));
    this.timer = setInterval(() => this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.watcher?.stop();
    if (this.timer) clearInterval(this.timer);
    this.lastWrite.clear();
  }

  private observe(c: Change): void {
    if (c.type === 'DELETED') this.lastWrite.delete(c.key);
    else this.lastWrite.set(c.key, this.now());
  }

  /** Deletes every Event whose last write is at least the TTL ago; returns how many went. */
  sweep(): number {
    const cutoff = this.now() - this.ttlMs;
    let deleted = 0;
    for (const [key, written] of [...this.lastWrite]) {
      if (written > cutoff) continue;
      const stored = this.storage.get(key);
      if (!stored) {
        this.lastWrite.delete(key);
        continue;
      }
      try {
        this.storage.delete(key, stored.revision);
        deleted++;
      } catch (e) {
        // Written again in between: that write renewed the lease.
        if (!(e instanceof RevisionMismatchError || e instanceof KeyNotFoundError)) throw e;
      }
    }
    return deleted;
  }
}
