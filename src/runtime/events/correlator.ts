// client-go's EventCorrelator (tools/record/events_cache.go), which keeps a controller that reports
// the same thing in a loop from flooding the API server:
//  1. aggregation: more than `maxSimilar` distinct messages with the same object/type/reason within
//     `aggregateWindowMs` collapse into one "(combined from similar events): ..." event;
//  2. dedup: a repeat of an event already written becomes a PATCH of its count and lastTimestamp;
//  3. spam filter: a token bucket per source+object (burst 25, one token per 5 min) drops the rest.
import type { CoreEvent } from '../../apimachinery/events/types.ts';

export interface CorrelatorOptions {
  /** Distinct messages per object/type/reason before aggregation. Default 10. */
  maxSimilar?: number;
  /** Window of the similar-message count. Default 600 000 ms (10 min). */
  aggregateWindowMs?: number;
  /** Spam filter bucket size per object. Default 25. */
  spamBurst?: number;
  /** Spam filter refill, tokens per second. Default 1/300 (one per 5 min). */
  spamQps?: number;
  /** Entries kept in each LRU cache. Default 4096. */
  cacheSize?: number;
}

export type Correlated =
  | { action: 'skip' }
  | { action: 'create'; event: CoreEvent; key: string }
  | {
      action: 'patch';
      event: CoreEvent;
      key: string;
      patch: { count: number; lastTimestamp: string; message: string };
    };

interface Observed {
  name: string;
  count: number;
  firstTimestamp: string;
}

interface Similar {
  messages: Set<string>;
  since: number;
}

interface Bucket {
  tokens: number;
  last: number;
}

/** A small LRU on Map insertion order. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  delete(k: string): void {
    this.map.delete(k);
  }
}

export const COMBINED_PREFIX = '(combined from similar events): ';

export class EventCorrelator {
  private readonly maxSimilar: number;
  private readonly windowMs: number;
  private readonly burst: number;
  private readonly qps: number;
  private readonly similar: Lru<Similar>;
  private readonly observed: Lru<Observed>;
  private readonly buckets: Lru<Bucket>;

  constructor(opts: CorrelatorOptions = {}) {
    this.maxSimilar = opts.maxSimilar ?? 10;
    this.windowMs = opts.aggregateWindowMs ?? 600_000;
    this.burst = opts.spamBurst ?? 25;
    this.qps = opts.spamQps ?? 1 / 300;
    const size = opts.cacheSize ?? 4096;
    this.similar = new Lru(size);
    this.observed = new Lru(size);
    this.buckets = new Lru(size);
  }

  /** Decides what to write for `event` observed at `now` (ms). */
  correlate(event: CoreEvent, now: number): Correlated {
    const objKey = objectKey(event);
    const aggKey = `${objKey}|${event.type}|${event.reason}`;
    let e = event;
    let key = `${aggKey}|${event.message}`;
    let sim = this.similar.get(aggKey);
    if (!sim || now - sim.since > this.windowMs) sim = { messages: new Set(), since: now };
    sim.messages.add(event.message);
    this.similar.set(aggKey, sim);
    if (sim.messages.size >= this.maxSimilar) {
      e = { ...event, message: `${COMBINED_PREFIX}${event.message}` };
      key = aggKey;
    }

    if (!this.takeToken(objKey, now)) return { action: 'skip' };

    const prev = this.observed.get(key);
    if (prev) {
      const count = prev.count + 1;
      this.observed.set(key, { ...prev, count });
      const patched: CoreEvent = {
        ...e,
        metadata: { ...e.metadata, name: prev.name },
        count,
        firstTimestamp: prev.firstTimestamp,
      };
      return {
        action: 'patch',
        event: patched,
        key,
        patch: { count, lastTimestamp: e.lastTimestamp, message: e.message },
      };
    }
    this.observed.set(key, { name: e.metadata.name, count: e.count, firstTimestamp: e.firstTimestamp });
    return { action: 'create', event: e, key };
  }

  /** The write for `key` failed for good: forget it, so the next repeat creates a fresh Event. */
  forget(key: string): void {
    this.observed.delete(key);
  }

  /** After a PATCH found the Event gone (expired) and a new one was created under `name`. */
  recreated(key: string, name: string, count: number, firstTimestamp: string): void {
    this.observed.set(key, { name, count, firstTimestamp });
  }

  private takeToken(key: string, now: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.burst, last: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.last) / 1000) * this.qps);
    b.last = now;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.set(key, b);
    return ok;
  }
}

function objectKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host ?? '',
    o.apiVersion,
    o.kind,
    o.namespace ?? '',
    o.name,
    o.uid ?? '',
    o.fieldPath ?? '',
  ].join('|');
}
