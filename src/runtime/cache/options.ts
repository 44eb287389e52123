// Every tunable of the reflector and informers, with its default, in one place.
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { defaultMetricsRegistry } from '../client/metrics.ts';
import type { KubeObject } from '../client/types.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import { createLogger } from '../util/logger.ts';
import { stripManagedFields } from './transform.ts';
import type { Transform } from './transform.ts';

export interface RelistBackoff {
  /** First delay after a failed list/watch or a 410. Default 800 ms (client-go). */
  initialMs: number;
  /** Cap of the (doubling) delay. Default 30 000 ms. */
  maxMs: number;
  /** A failure-free period this long resets the delay to `initialMs`. Default 120 000 ms (2 min). */
  resetAfterMs: number;
  /** Each delay is `d + random × jitter × d`; 1 means up to double. Default 1. */
  jitter: number;
}

/**
 * Options of an InformerFactory (and of each informer it makes), with defaults applied.
 *
 * Memory: the cache holds one (transformed) copy of every object in scope for the life of the
 * process. By default that copy is the object's JSON text plus its index values, about 1.5× the
 * JSON size (a parsed object graph costs 2.5–4×); see `keepParsedObjects` for the read cost.
 * Scope informers to namespaces or labels where you can, and keep the managedFields transform
 * unless you read managedFields from the cache.
 */
export interface ResolvedInformerOptions {
  /** Page size of the initial list and of relists (`limit`). Default 500. */
  pageSize: number;
  /**
   * Each watch request asks the server to end it after a random duration in this range (seconds),
   * so reconnects spread out and no connection lives forever. Default [300, 600] (client-go's 5–10 min).
   */
  watchTimeoutSeconds: [number, number];
  /** Backoff between failed attempts and before a relist after 410 Gone. */
  relistBackoff: RelistBackoff;
  /**
   * Reconnect a watch when nothing (no event, no bookmark) arrived for this long. Bookmarks are asked
   * for, so a live but quiet watch still shows signs of life. Default 70 000 ms (kopf's inactivity timeout).
   * 0 disables.
   */
  watchdogMs: number;
  /**
   * Applied to each object before it is stored and handed to handlers. Default {@link stripManagedFields};
   * `null` stores objects as received.
   */
  transform: Transform | null;
  /**
   * Deep-freeze cached objects so accidental mutation throws. Default false (it costs a walk per object,
   * and the JSON store walks again each time it re-parses one); turn it on in tests. Either way, cached
   * objects must be treated as immutable: copy before editing. A mutation never reaches the store, so
   * it shows only to holders of that one instance and is gone once it is collected.
   */
  freezeObjects: boolean;
  /**
   * Default false: the cache keeps each object as JSON text and hands out parsed objects through a
   * WeakRef, so an object stays one shared instance while anyone holds it; once it was garbage
   * collected, the next `get`/`list`/`byIndex` (or handler call needing the old state) parses it
   * again (~2–5 µs per KB; a cold `list()` of 50,000 ConfigMaps is ~0.2 s, a warm one a few ms).
   * True keeps the parsed objects (the cache then costs 2.5–4× the JSON size, reads never parse).
   * Also needed when a transform returns values that do not survive a JSON round trip (Dates,
   * Maps, undefined, class instances): the JSON store would hand out their JSON form.
   */
  keepParsedObjects: boolean;
  /** Default timeout of `waitForResourceVersion`. Default 10 000 ms. */
  readYourWritesTimeoutMs: number;
  /** Default "peerpods-cache" logger at `LOG_LEVEL`. */
  logger: Logger;
  /** Registry for `peerpods_reflector_*` / `peerpods_informer_*`. Default: prom-client's global registry. */
  metricsRegistry: Registry | null;
  clock: Clock;
  random: () => number;
}

/** What callers pass: any subset of {@link ResolvedInformerOptions}; the rest takes the documented defaults. */
export type InformerOptions = Partial<Omit<ResolvedInformerOptions, 'relistBackoff'>> & {
  relistBackoff?: Partial<RelistBackoff>;
};

export const DEFAULT_RELIST_BACKOFF: Readonly<RelistBackoff> = Object.freeze({
  initialMs: 800,
  maxMs: 30_000,
  resetAfterMs: 120_000,
  jitter: 1,
});

export function resolveInformerOptions(input: InformerOptions = {}): ResolvedInformerOptions {
  const watchTimeoutSeconds = input.watchTimeoutSeconds ?? [300, 600];
  if (watchTimeoutSeconds[0] <= 0 || watchTimeoutSeconds[1] < watchTimeoutSeconds[0]) {
    throw new RangeError('watchTimeoutSeconds must be [min, max] with 0 < min <= max');
  }
  const pageSize = input.pageSize ?? 500;
  if (!(pageSize >= 1)) throw new RangeError('pageSize must be >= 1');
  return {
    pageSize,
    watchTimeoutSeconds,
    relistBackoff: { ...DEFAULT_RELIST_BACKOFF, ...input.relistBackoff },
    watchdogMs: input.watchdogMs ?? 70_000,
    transform: input.transform === undefined ? (stripManagedFields as Transform) : input.transform,
    freezeObjects: input.freezeObjects ?? false,
    keepParsedObjects: input.keepParsedObjects ?? false,
    readYourWritesTimeoutMs: input.readYourWritesTimeoutMs ?? 10_000,
    logger: input.logger ?? createLogger('peerpods-cache'),
    metricsRegistry: input.metricsRegistry === undefined ? defaultMetricsRegistry : input.metricsRegistry,
    clock: input.clock ?? realClock,
    random: input.random ?? Math.random,
  };
}

/** Per-informer overrides given to `informerFor`. */
export interface InformerOverrides<T extends KubeObject = KubeObject> {
  transform?: Transform<T> | null;
  /** Extra indexes, as with `addIndex`. */
  indexers?: Record<string, (obj: T) => string[]>;
}
