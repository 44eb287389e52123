// A controller: informer events → predicates → keys → work queue → `maxConcurrentReconciles`
// workers calling the reconciler. It is a leader-elected Runnable and can be started again after it
// stopped (when this replica wins the lease back), each run with a fresh queue.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import { CacheSyncTimeoutError } from '../cache/informer.ts';
import type { KubeObject } from '../client/types.ts';
import { graceOf } from '../manager/runnable.ts';
import type { Runnable } from '../manager/runnable.ts';
import { WorkQueue } from '../queue/work-queue.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import type { Priority } from '../queue/priority.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import { silentLogger } from '../util/logger.ts';
import type { Logger } from '../util/logger.ts';
import { toRequests } from './handlers.ts';
import type { MapFunc } from './handlers.ts';
import { noopControllerMetrics, prometheusControllerMetrics } from './metrics.ts';
import type { ControllerMetrics } from './metrics.ts';
import { admitsAll } from './predicates.ts';
import type { EventKind, Predicate } from './predicates.ts';
import { TerminalError, parseRequestKey, requestKey } from './reconciler.ts';
import type { Reconciler } from './reconciler.ts';
import type { ControllerInformer } from './source.ts';

/** One kind the controller watches and how its events become keys. */
export interface WatchSource<T extends KubeObject = KubeObject> {
  informer: ControllerInformer<T>;
  map: MapFunc<T>;
  predicates: Predicate<T>[];
  /** For logs. */
  description?: string;
}

export interface ControllerOptions {
  /** Unique per manager; the `controller` label of metrics and logs and the queue's `name`. */
  name: string;
  reconciler: Reconciler;
  /** Workers; never two on the same key. Default 1. */
  maxConcurrentReconciles?: number;
  /** Retry delays after errors. Default: per key 5 ms→1000 s, max-of a 10/s burst-100 bucket. */
  rateLimiter?: RateLimiter;
  /** See {@link WorkQueueOptions.lowPriorityAgingMs}. Default 5000 ms. */
  lowPriorityAgingMs?: number;
  /** How long to wait for the informers' initial lists before the start fails. Default 120 000 ms. */
  cacheSyncTimeoutMs?: number;
  /**
   * How long in-flight reconciles may run after a stop before their signal aborts, when the stop
   * carries no grace period of its own. Default 30 000 ms.
   */
  shutdownTimeoutMs?: number;
  /** Default true. */
  needLeaderElection?: boolean;
  clock?: Clock;
  logger?: Logger;
  metricsRegistry?: Registry;
}

interface Run {
  queue: WorkQueue;
  /** Aborts the reconciles' signal once the grace period is over. */
  hardStop: AbortController;
}

export class Controller implements Runnable {
  readonly name: string;
  readonly needLeaderElection: boolean;
  private readonly reconciler: Reconciler;
  private readonly workers: number;
  private readonly opts: ControllerOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics;
  private readonly sources: WatchSource[] = [];
  private readonly registered = new Set<WatchSource>();
  private run: Run | undefined;
  private running = false;
  // Workers of a previous run that outlived its grace period (a reconcile ignoring its signal).
  private lingering: Promise<unknown> = Promise.resolve();

  constructor(opts: ControllerOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.reconciler = opts.reconciler;
    this.workers = Math.max(1, opts.maxConcurrentReconciles ?? 1);
    this.needLeaderElection = opts.needLeaderElection ?? true;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? silentLogger()).child({ controller: opts.name });
    this.metrics = opts.metricsRegistry
      ? prometheusControllerMetrics(opts.metricsRegistry, opts.name)
      : noopControllerMetrics;
    this.metrics.setMaxConcurrent(this.workers);
  }

  /** Adds a watched kind. Sources added after start are registered at once. */
  watch<T extends KubeObject>(source: WatchSource<T>): void {
    this.sources.push(source as unknown as WatchSource);
    if (this.running) this.register(source as unknown as WatchSource);
  }

  /** The current run's queue (for tests and introspection); undefined when not running. */
  get queue(): WorkQueue | undefined {
    return this.run?.queue;
  }

  /** Enqueues a request directly, e.g. from an external trigger. Ignored when not running. */
  enqueue(req: { namespace?: string; name: string }, priority: Priority = 'normal'): void {
    this.run?.queue.add(requestKey(req), { priority });
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`controller ${this.name} is already running`);
    this.running = true;
    const queue = new WorkQueue({
      name: this.name,
      clock: this.clock,
      ...(this.opts.rateLimiter ? { rateLimiter: this.opts.rateLimiter } : {}),
      ...(this.opts.lowPriorityAgingMs !== undefined ? { lowPriorityAgingMs: this.opts.lowPriorityAgingMs } : {}),
      ...(this.opts.metricsRegistry ? { metricsRegistry: this.opts.metricsRegistry } : {}),
    });
    const run: Run = { queue, hardStop: new AbortController() };
    // Every in-flight reconcile's requests listen on this one signal: many workers are not a leak.
    setMaxListeners(Math.max(10, this.workers * 4), run.hardStop.signal);
    this.run = run;
    try {
      for (const s of this.sources) this.register(s);
      this.log.info({ workers: this.workers }, 'starting controller');
      await this.waitForSync(signal);
      if (signal.aborted) return;
      // A reconcile left over from the previous run may still be going; starting workers now could
      // run its key twice at once.
      await Promise.race([this.lingering, abortedPromise(signal)]);
      if (signal.aborted) return;
      // Handlers registered before this run dropped their events (no queue then), and an informer
      // need not replay its store to a handler added late: list every source once, as low priority.
      for (const s of this.sources) this.replay(s, queue);
      const workers = Array.from({ length: this.workers }, () => this.worker(run));
      await abortedPromise(signal);
      const graceMs = graceOf(signal, this.opts.shutdownTimeoutMs ?? 30_000);
      this.log.info({ inFlight: queue.processingCount(), graceMs }, 'stopping controller');
      const drained = await queue.shutDownWithDrain(graceMs);
      if (!drained) {
        this.log.warn(
          { inFlight: queue.processingCount() },
          'in-flight reconciles did not finish in time; aborting them',
        );
      }
      run.hardStop.abort(signal.reason);
      this.lingering = Promise.all(workers);
      if (drained) await this.lingering;
    } finally {
      run.queue.shutDown();
      run.hardStop.abort(signal.reason);
      if (this.run === run) this.run = undefined;
      this.running = false;
    }
  }

  private register(s: WatchSource): void {
    if (this.registered.has(s)) return;
    this.registered.add(s);
    // One handler per source for the controller's lifetime, routed to whichever run is current.
    s.informer.addHandler({
      onAdd: (obj, isInitialList) => this.handle(s, 'create', obj, undefined, isInitialList === true),
      onUpdate: (oldObj, newObj) => this.handle(s, 'update', newObj, oldObj, false),
      onDelete: (obj) => this.handle(s, 'delete', obj, undefined, false),
    });
  }

  private handle(
    s: WatchSource,
    kind: EventKind,
    obj: KubeObject,
    old: KubeObject | undefined,
    initial: boolean,
  ): void {
    const queue = this.run?.queue;
    if (!queue) return;
    try {
      if (!admitsAll(s.predicates, kind, obj, old, initial)) return;
      // Resyncs deliver an update with an unchanged resourceVersion: as cheap as the initial list.
      const low = initial || (kind === 'update' && old?.metadata.resourceVersion === obj.metadata.resourceVersion);
      const priority: Priority = low ? 'low' : 'normal';
      const keys = new Set(toRequests(s.map(obj)).map(requestKey));
      if (kind === 'update' && old) for (const r of toRequests(s.map(old))) keys.add(requestKey(r));
      for (const k of keys) queue.add(k, { priority });
    } catch (err) {
      // A throwing map function or predicate must not break the informer's delivery to others.
      this.log.error({ err, source: s.description }, 'event handler failed');
    }
  }

  private replay(s: WatchSource, queue: WorkQueue): void {
    for (const obj of s.informer.list()) {
      try {
        if (!admitsAll(s.predicates, 'create', obj, undefined, true)) continue;
        for (const r of toRequests(s.map(obj))) queue.add(requestKey(r), { priority: 'low' });
      } catch (err) {
        this.log.error({ err, source: s.description }, 'event handler failed');
      }
    }
  }

  private async waitForSync(signal: AbortSignal): Promise<void> {
    const timeoutMs = this.opts.cacheSyncTimeoutMs ?? 120_000;
    const timeout = new AbortController();
    const timer = this.clock.setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const deadline = AbortSignal.any([signal, timeout.signal]);
    try {
      await Promise.all(this.sources.map((s) => s.informer.waitForSync(deadline)));
    } catch (err) {
      if (signal.aborted) return;
      if (timeout.signal.aborted) throw new CacheSyncTimeoutError(`controller ${this.name}`, timeoutMs, undefined);
      throw err;
    } finally {
      this.clock.clearTimeout(timer);
    }
    if (!signal.aborted && timeout.signal.aborted)
      throw new CacheSyncTimeoutError(`controller ${this.name}`, timeoutMs, undefined);
  }

  private async worker(run: Run): Promise<void> {
    for (;;) {
      const key = await run.queue.get();
      if (key === undefined) return;
      this.metrics.workerStarted();
      try {
        await this.reconcileKey(run, key);
      } finally {
        this.metrics.workerFinished();
        run.queue.done(key);
      }
    }
  }

  private async reconcileKey(run: Run, key: string): Promise<void> {
    const req = parseRequestKey(key);
    const reconcileId = randomUUID();
    // The key names the object (namespace/name); a separate `name` would clash with the logger's own.
    const log = this.log.child({ key, reconcileId });
    const started = this.clock.now();
    const seconds = (): number => (this.clock.now() - started) / 1000;
    try {
      const result = await this.reconciler.reconcile(req, { signal: run.hardStop.signal, log, reconcileId });
      const after = result?.requeueAfter;
      run.queue.forget(key);
      if (after !== undefined && after > 0) {
        run.queue.addAfter(key, after);
        this.metrics.reconciled('requeue_after', seconds());
        log.debug({ requeueAfter: after }, 'reconciled; requeue requested');
      } else {
        this.metrics.reconciled('success', seconds());
        log.debug('reconciled');
      }
    } catch (err) {
      const terminal = err instanceof TerminalError;
      this.metrics.failed(terminal);
      this.metrics.reconciled('error', seconds());
      if (terminal) {
        run.queue.forget(key);
        log.error({ err }, 'reconcile failed with a terminal error; not retrying');
      } else if (run.hardStop.signal.aborted) {
        log.info({ err }, 'reconcile aborted by shutdown');
      } else {
        run.queue.addRateLimited(key);
        log.error({ err, retries: run.queue.numRequeues(key) }, 'reconcile failed; retrying with backoff');
      }
    }
  }
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
