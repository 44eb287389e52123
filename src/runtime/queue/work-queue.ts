// The controller work queue: level-triggered keys, not events. Semantics follow client-go's
// workqueue (dirty/processing sets, so a key is never handed to two workers at once and a key
// re-added while being processed runs once more afterwards) with controller-runtime's priority
// lanes, plus aging so the low lane is not starved either (controller-runtime#3496).
import type { Registry } from 'prom-client';
import { realClock } from '../util/clock.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import { DelayHeap } from './delay-heap.ts';
import { noopQueueMetrics, prometheusQueueMetrics } from './metrics.ts';
import type { QueueMetrics } from './metrics.ts';
import { maxPriority } from './priority.ts';
import type { Priority } from './priority.ts';
import { defaultControllerRateLimiter } from './rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';

export interface WorkQueueOptions {
  /** The `name` label of the queue's metrics (controller-runtime uses the controller name). */
  name?: string;
  /** Default {@link realClock}; tests pass a FakeClock. */
  clock?: Clock;
  /** Delays for {@link WorkQueue.addRateLimited}. Default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  /**
   * Once the oldest low-priority key has waited this long, the queue alternates between the lanes
   * instead of always preferring `normal`, so a steady stream of changes cannot starve the initial
   * list. Default 5000 ms.
   */
  lowPriorityAgingMs?: number;
  /** Registers the `workqueue_*` metrics here. Default: no metrics. */
  metricsRegistry?: Registry;
}

export interface AddOptions {
  /** `low` for keys produced only by the initial list or a resync. Default `normal`. */
  priority?: Priority;
}

export interface ShutDownOptions {
  /**
   * Keep handing out keys already queued before returning `undefined` from {@link WorkQueue.get}.
   * Default false: queued and delayed keys are dropped, since a level-triggered controller finds
   * them again from its initial list on the next start.
   */
  drainQueued?: boolean;
}

export class WorkQueue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  private readonly agingMs: number;
  private readonly metrics: QueueMetrics;

  // Ready keys in FIFO order (Map keeps insertion order), valued by the time they were first added.
  private readonly normal = new Map<string, number>();
  private readonly low = new Map<string, number>();
  // Keys handed to a worker and not yet `done`, valued by when the work started.
  private readonly processing = new Map<string, number>();
  // Keys added again while processing: re-queued by `done`.
  private readonly dirty = new Map<string, { addedAt: number; priority: Priority }>();
  private readonly delayed = new DelayHeap();
  private timer: TimerHandle | undefined;
  private timerAt: number | undefined;
  private waiters: Array<(key: string | undefined) => void> = [];
  private idleWaiters: Array<() => void> = [];
  private lastPickWasAgedLow = false;
  private shutdown: ShutDownOptions | undefined;

  constructor(opts: WorkQueueOptions = {}) {
    this.name = opts.name ?? 'workqueue';
    this.clock = opts.clock ?? realClock;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter({ clock: this.clock });
    this.agingMs = opts.lowPriorityAgingMs ?? 5000;
    this.metrics = opts.metricsRegistry
      ? prometheusQueueMetrics(opts.metricsRegistry, this.name, {
          startTimes: () => this.processing.values(),
          now: () => this.clock.now(),
        })
      : noopQueueMetrics;
  }

  /** Number of keys ready to be handed out (not counting delayed or in-progress keys). */
  len(): number {
    return this.normal.size + this.low.size;
  }

  /** Number of keys waiting for {@link addAfter} or a retry delay. */
  delayedLen(): number {
    return this.delayed.size;
  }

  /** Number of keys handed out and not yet {@link done}. */
  processingCount(): number {
    return this.processing.size;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  get shuttingDown(): boolean {
    return this.shutdown !== undefined;
  }

  /** Queues `key` unless it is already queued; ignored after shutdown. */
  add(key: string, opts: AddOptions = {}): void {
    if (this.shutdown) return;
    const priority = opts.priority ?? 'normal';
    const now = this.clock.now();
    if (this.processing.has(key)) {
      const d = this.dirty.get(key);
      if (d) d.priority = maxPriority(d.priority, priority);
      else {
        this.dirty.set(key, { addedAt: now, priority });
        this.metrics.added();
      }
      return;
    }
    if (this.normal.has(key)) return;
    const lowSince = this.low.get(key);
    if (lowSince !== undefined) {
      if (priority === 'normal') {
        // A real change to a key that was only listed: it moves up but keeps its age for metrics.
        this.low.delete(key);
        this.normal.set(key, lowSince);
        this.dispatch();
      }
      return;
    }
    this.metrics.added();
    (priority === 'normal' ? this.normal : this.low).set(key, now);
    this.dispatch();
  }

  /** Queues `key` after `delayMs` (the earliest pending time wins if it is already waiting). */
  addAfter(key: string, delayMs: number, opts: AddOptions = {}): void {
    if (this.shutdown) return;
    if (delayMs <= 0) {
      this.add(key, opts);
      return;
    }
    this.delayed.push(key, this.clock.now() + delayMs, opts.priority ?? 'normal');
    this.armTimer();
  }

  /** Queues `key` after its rate-limited retry delay (exponential per key, max-of the shared bucket). */
  addRateLimited(key: string): void {
    if (this.shutdown) return;
    this.metrics.retried();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Resets the retry backoff of `key` (after a success, or when giving up on it). */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting until one is ready; `undefined` once the queue is shut down
   * (and, with `drainQueued`, empty). The caller must call {@link done} with the key afterwards.
   */
  get(): Promise<string | undefined> {
    const key = this.tryGet();
    if (key !== undefined) return Promise.resolve(key);
    // While draining, a key being processed may still come back (re-added meanwhile), so a worker
    // only leaves once nothing is in flight.
    if (this.shutdown && (!this.shutdown.drainQueued || this.isIdle())) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Like {@link get} but never waits. */
  tryGet(): string | undefined {
    if (this.len() === 0) return undefined;
    if (this.shutdown && !this.shutdown.drainQueued) return undefined;
    return this.take();
  }

  /** Marks `key` finished; if it was added meanwhile it is queued again now. */
  done(key: string): void {
    const startedAt = this.processing.get(key);
    if (startedAt === undefined) return;
    this.processing.delete(key);
    this.metrics.finished((this.clock.now() - startedAt) / 1000);
    const d = this.dirty.get(key);
    if (d) {
      this.dirty.delete(key);
      if (this.shutdown && !this.shutdown.drainQueued) this.metrics.discarded(1);
      else {
        (d.priority === 'normal' ? this.normal : this.low).set(key, d.addedAt);
        this.dispatch();
      }
    }
    this.checkIdle();
  }

  /**
   * Stops accepting keys and wakes every waiting {@link get} with `undefined`. Keys being processed
   * still finish; use {@link drain} to wait for them.
   */
  shutDown(opts: ShutDownOptions = {}): void {
    if (this.shutdown) return;
    this.shutdown = { ...opts };
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = undefined;
    this.delayed.clear();
    if (!opts.drainQueued) {
      this.metrics.discarded(this.len() + this.dirty.size);
      this.normal.clear();
      this.low.clear();
      this.dirty.clear();
    }
    if (!opts.drainQueued) this.releaseWaiters();
    this.checkIdle();
  }

  /**
   * Resolves true once no key is being processed (and, with `drainQueued`, none is queued), or false
   * after `timeoutMs` (default: no limit).
   */
  drain(timeoutMs?: number): Promise<boolean> {
    if (this.isIdle()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined;
      const onIdle = (): void => {
        this.clock.clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(onIdle);
      if (timeoutMs !== undefined) {
        timer = this.clock.setTimeout(() => {
          this.idleWaiters = this.idleWaiters.filter((w) => w !== onIdle);
          resolve(false);
        }, timeoutMs);
      }
    });
  }

  /** {@link shutDown} then {@link drain}. */
  shutDownWithDrain(timeoutMs?: number, opts: ShutDownOptions = {}): Promise<boolean> {
    this.shutDown(opts);
    return this.drain(timeoutMs);
  }

  private isIdle(): boolean {
    return this.processing.size === 0 && (!this.shutdown?.drainQueued || this.len() + this.dirty.size === 0);
  }

  private checkIdle(): void {
    if (!this.shutdown || !this.isIdle()) return;
    this.metrics.close();
    this.releaseWaiters();
    const ws = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of ws) w();
  }

  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  private dispatch(): void {
    while (this.waiters.length > 0 && this.len() > 0) {
      const w = this.waiters.shift() as (key: string | undefined) => void;
      w(this.take());
    }
  }

  private take(): string {
    const now = this.clock.now();
    const lane = this.pickLane(now);
    const [key, addedAt] = lane.entries().next().value as [string, number];
    lane.delete(key);
    this.processing.set(key, now);
    this.metrics.taken((now - addedAt) / 1000);
    return key;
  }

  private pickLane(now: number): Map<string, number> {
    if (this.low.size === 0) return this.normal;
    if (this.normal.size === 0) return this.low;
    const oldestLow = this.low.values().next().value as number;
    if (now - oldestLow < this.agingMs) {
      this.lastPickWasAgedLow = false;
      return this.normal;
    }
    // Aged: alternate, so each lane gets at least every other worker slot.
    this.lastPickWasAgedLow = !this.lastPickWasAgedLow;
    return this.lastPickWasAgedLow ? this.low : this.normal;
  }

  private armTimer(): void {
    const at = this.delayed.peekTime();
    if (at === this.timerAt) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (at === undefined) return;
    this.timer = this.clock.setTimeout(() => this.onTimer(), at - this.clock.now());
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = undefined;
    if (this.shutdown) return;
    for (const due of this.delayed.popDue(this.clock.now())) this.add(due.key, { priority: due.priority });
    // Real timers may fire a millisecond early; re-arming covers anything not yet due.
    this.armTimer();
  }
}
