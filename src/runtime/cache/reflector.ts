// The reflector keeps a store in step with the server: a paged list, then a watch from the list's
// resourceVersion (with bookmarks), resumed from the last seen resourceVersion whenever it ends.
// It relists after 410 Gone, backs off on failures, reconnects silent watches, and never gives up:
// every failure is logged, counted and reflected in health until it recovers or is stopped.
//
// States: idle → listing → watching ⇄ (waiting) → … → stopped
import type { Logger } from 'pino';
import { ApiError, isGone } from '../client/errors.ts';
import type { KubeObject, Status } from '../client/types.ts';
import { Backoff } from '../../apimachinery/backoff.ts';
import type { ListerWatcher } from './list-watch.ts';
import type { CacheMetrics } from './metrics.ts';
import type { ResolvedInformerOptions } from './options.ts';

export type ReflectorState = 'idle' | 'listing' | 'watching' | 'waiting' | 'stopped';

/** Where the reflector delivers what it learns (the informer). */
export interface ReflectorSink<T extends KubeObject> {
  /** A complete list: the store must become exactly `items`. */
  replace(items: T[], resourceVersion: string): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
  /** The resourceVersion advanced without a change in scope (BOOKMARK). */
  bookmark(resourceVersion: string): void;
  /** Called on every transition between working and failing. */
  health(healthy: boolean, error?: unknown): void;
}

export interface ReflectorConfig<T extends KubeObject> {
  /** For logs, e.g. "pods.v1 namespace=a". */
  name: string;
  listerWatcher: ListerWatcher<T>;
  sink: ReflectorSink<T>;
  options: ResolvedInformerOptions;
  logger: Logger;
  metrics?: { metrics: CacheMetrics; labels: { kind: string; group: string; scope: string } };
}

/** A watch that ends this fast without a single event counts as a failure (backs off), not a restart. */
const MIN_HEALTHY_WATCH_MS = 1000;

class WatchdogTimeout extends Error {
  constructor(ms: number) {
    super(`no watch event or bookmark for ${ms} ms`);
    this.name = 'WatchdogTimeout';
  }
}

type WatchEnd = { reason: 'closed' | 'watchdog' | 'stream_error'; events: number; durationMs: number; error?: unknown };

type RelistReason = 'initial' | 'gone' | 'error';

export class Reflector<T extends KubeObject> {
  private currentState: ReflectorState = 'idle';
  private lastRV = '';
  private readonly stopController = new AbortController();
  private running: Promise<void> | undefined;
  private readonly backoff: Backoff;
  private lastErr: unknown;

  constructor(private readonly cfg: ReflectorConfig<T>) {
    const { relistBackoff, clock, random } = cfg.options;
    this.backoff = new Backoff({
      initialMs: relistBackoff.initialMs,
      maxMs: relistBackoff.maxMs,
      resetAfterMs: relistBackoff.resetAfterMs,
      jitter: relistBackoff.jitter,
      clock,
      random,
    });
  }

  get state(): ReflectorState {
    return this.currentState;
  }

  lastResourceVersion(): string {
    return this.lastRV;
  }

  /** The most recent failure (cleared by nothing; read it together with health). */
  lastError(): unknown {
    return this.lastErr;
  }

  start(): void {
    if (this.running) return;
    if (this.stopController.signal.aborted) throw new Error(`reflector ${this.cfg.name} was stopped; create a new one`);
    this.running = this.run();
  }

  /** Ends the current list/watch and waits until the loop has exited. */
  async stop(): Promise<void> {
    this.stopController.abort(new Error('reflector stopped'));
    this.currentState = 'stopped';
    await this.running;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private async run(): Promise<void> {
    let needList = true;
    let relistReason: RelistReason = 'initial';
    const { logger } = this.cfg;
    while (!this.stopped) {
      try {
        if (needList) {
          if (relistReason !== 'initial') this.count('relists', { reason: relistReason });
          await this.listAndReplace();
          needList = false;
        }
        if (this.stopped) break;
        const end = await this.watchOnce();
        if (this.stopped) break;
        this.count('watchRestarts', { reason: end.reason });
        if (end.reason === 'stream_error') this.count('watchErrors');
        if (end.reason === 'watchdog') {
          logger.warn({ informer: this.cfg.name, resourceVersion: this.lastRV }, 'watch silent too long; reconnecting');
        } else {
          logger.debug({ informer: this.cfg.name, reason: end.reason, events: end.events }, 'watch ended; resuming');
        }
        if (end.events === 0 && end.durationMs < MIN_HEALTHY_WATCH_MS) await this.wait(this.backoff.next());
      } catch (e) {
        if (this.stopped) break;
        this.lastErr = e;
        const listing = this.currentState === 'listing';
        if (listing) {
          this.count('listErrors');
          this.cfg.sink.health(false, e);
          logger.error({ informer: this.cfg.name, err: describeError(e) }, 'list failed; retrying with backoff');
          relistReason = 'error';
        } else if (isGone(e)) {
          this.count('watchRestarts', { reason: 'gone' });
          logger.info(
            { informer: this.cfg.name, resourceVersion: this.lastRV },
            'resourceVersion expired (410); relisting',
          );
          needList = true;
          relistReason = 'gone';
        } else {
          this.count('watchErrors');
          this.count('watchRestarts', { reason: 'error' });
          this.cfg.sink.health(false, e);
          if (retryWatchFromLastRV(e) && this.lastRV) {
            logger.warn({ informer: this.cfg.name, err: describeError(e) }, 'watch failed; retrying with backoff');
          } else {
            logger.error({ informer: this.cfg.name, err: describeError(e) }, 'watch refused; relisting with backoff');
            needList = true;
            relistReason = 'error';
          }
        }
        await this.wait(this.backoff.next());
      }
    }
    this.currentState = 'stopped';
  }

  private async listAndReplace(): Promise<void> {
    this.currentState = 'listing';
    const { items, resourceVersion } = await this.pagedList();
    const valid: T[] = [];
    for (const item of items) {
      if (isValidObject(item)) valid.push(item);
      else this.malformed('list item without metadata.name', JSON.stringify(item).slice(0, 200));
    }
    this.cfg.sink.replace(valid, resourceVersion);
    this.lastRV = resourceVersion;
    this.count('lists');
    this.cfg.sink.health(true);
  }

  /** Pages of `pageSize`; if the continue token expires mid-way, one unpaged list (as client-go's pager does). */
  private async pagedList(): Promise<{ items: T[]; resourceVersion: string }> {
    const { listerWatcher: lw, options } = this.cfg;
    const signal = this.stopController.signal;
    let page = await lw.list({ limit: options.pageSize, signal });
    const resourceVersion = page.resourceVersion;
    const items = [...page.items];
    while (page.continue) {
      try {
        page = await lw.list({ limit: options.pageSize, continue: page.continue, signal });
      } catch (e) {
        if (!isGone(e)) throw e;
        this.cfg.logger.info({ informer: this.cfg.name }, 'continue token expired mid-list; listing without paging');
        const full = await lw.list({ signal });
        return { items: full.items, resourceVersion: full.resourceVersion };
      }
      items.push(...page.items);
    }
    return { items, resourceVersion };
  }

  private async watchOnce(): Promise<WatchEnd> {
    this.currentState = 'watching';
    const { options, listerWatcher: lw, sink } = this.cfg;
    const { clock } = options;
    const controller = new AbortController();
    const onStop = (): void => controller.abort(this.stopController.signal.reason);
    // stop() can land between the list and this point (e.g. right after waitForSync resolved): an
    // already-aborted signal never fires 'abort' again, and the watch would then stay open until the
    // server's timeout or the watchdog, so stop() would hang for minutes.
    if (this.stopped) onStop();
    else this.stopController.signal.addEventListener('abort', onStop, { once: true });

    let watchdogFired = false;
    let timer: ReturnType<typeof clock.setTimeout> | undefined;
    const arm = (): void => {
      clock.clearTimeout(timer);
      if (options.watchdogMs > 0) {
        timer = clock.setTimeout(() => {
          watchdogFired = true;
          controller.abort(new WatchdogTimeout(options.watchdogMs));
        }, options.watchdogMs);
      }
    };

    const [minT, maxT] = options.watchTimeoutSeconds;
    const timeoutSeconds = Math.floor(minT + options.random() * (maxT - minT + 1));
    const started = clock.now();
    let events = 0;
    let opened = false;
    const end = (reason: WatchEnd['reason'], error?: unknown): WatchEnd => ({
      reason,
      events,
      durationMs: clock.now() - started,
      ...(error !== undefined ? { error } : {}),
    });

    arm();
    try {
      const stream = lw.watch({
        resourceVersion: this.lastRV,
        timeoutSeconds,
        allowWatchBookmarks: true,
        signal: controller.signal,
        onOpen: () => {
          opened = true;
          arm();
          this.count('watches');
          sink.health(true);
        },
        onMalformed: (line, err) => this.malformed(err.message, line.slice(0, 200)),
      });
      for await (const ev of stream) {
        if (controller.signal.aborted) break;
        arm();
        events++;
        this.count('watchEvents', { type: ev.type });
        switch (ev.type) {
          case 'ADDED':
          case 'MODIFIED':
          case 'DELETED': {
            if (!isValidObject(ev.object)) {
              this.malformed(`${ev.type} event without metadata.name`, JSON.stringify(ev.object).slice(0, 200));
              break;
            }
            sink.event(ev.type, ev.object);
            const rv = ev.object.metadata.resourceVersion;
            if (rv) this.lastRV = rv;
            break;
          }
          case 'BOOKMARK': {
            const rv = (ev.object as Partial<KubeObject>)?.metadata?.resourceVersion;
            if (typeof rv === 'string' && rv) {
              this.lastRV = rv;
              sink.bookmark(rv);
            }
            break;
          }
          case 'ERROR':
            throw ApiError.fromStatus(ev.object as unknown as Status);
        }
      }
      if (watchdogFired) return end('watchdog');
      return end('closed');
    } catch (e) {
      if (this.stopped) throw e;
      if (watchdogFired) return end('watchdog');
      // After the server accepted the watch, anything but an ERROR event means the connection broke:
      // resume from the last RV at once.
      if (opened && !(e instanceof ApiError)) return end('stream_error', e);
      throw e;
    } finally {
      clock.clearTimeout(timer);
      this.stopController.signal.removeEventListener('abort', onStop);
      controller.abort();
    }
  }

  private async wait(ms: number): Promise<void> {
    this.currentState = 'waiting';
    try {
      await this.cfg.options.clock.sleep(ms, this.stopController.signal);
    } catch {
      // stopped while waiting
    }
  }

  private malformed(reason: string, sample: string): void {
    this.count('malformed');
    this.cfg.logger.warn({ informer: this.cfg.name, reason, sample }, 'skipping malformed watch data');
  }

  private count(
    metric:
      'lists' | 'listErrors' | 'relists' | 'watches' | 'watchRestarts' | 'watchErrors' | 'watchEvents' | 'malformed',
    extra: Record<string, string> = {},
  ): void {
    const m = this.cfg.metrics;
    if (!m) return;
    (m.metrics[metric] as { inc(labels: Record<string, string>): void }).inc({ ...m.labels, ...extra });
  }
}

function isValidObject(o: unknown): o is KubeObject {
  if (typeof o !== 'object' || o === null) return false;
  const meta = (o as { metadata?: unknown }).metadata;
  return typeof meta === 'object' && meta !== null && typeof (meta as { name?: unknown }).name === 'string';
}

/** Transient failures where the watch can resume from where it was; anything else relists. */
function retryWatchFromLastRV(e: unknown): boolean {
  if (e instanceof ApiError) return e.code === 429 || e.code >= 500;
  return true;
}

export function describeError(e: unknown): string {
  if (e instanceof ApiError) return `${e.code} ${e.reason}: ${e.message}`;
  if (e instanceof Error) return e.message;
  return String(e);
}
