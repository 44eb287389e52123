// Retry delays for keys whose reconcile failed, modelled on client-go's
// util/workqueue/default_rate_limiters.go: a per-key exponential backoff combined (max-of) with a
// token bucket shared by every key, so one hot key backs off alone while a storm of failures
// across many keys is still throttled overall.
import { ItemExponentialBackoff } from '../../apimachinery/backoff.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';

export interface RateLimiter {
  /** Delay (ms) before `key` may be retried; records one more failure for it. */
  when(key: string): number;
  /** Clears the failure history of `key` (after a success or when giving up). */
  forget(key: string): void;
  /** Failures recorded for `key` since the last {@link forget}. */
  numRequeues(key: string): number;
}

/** Per-key delay `baseDelayMs · 2ⁿ` for the n-th consecutive failure, capped at `maxDelayMs`. */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly backoff: ItemExponentialBackoff;

  constructor(baseDelayMs = 5, maxDelayMs = 1_000_000) {
    this.backoff = new ItemExponentialBackoff(baseDelayMs, maxDelayMs);
  }

  when(key: string): number {
    return this.backoff.next(key);
  }

  forget(key: string): void {
    this.backoff.forget(key);
  }

  numRequeues(key: string): number {
    return this.backoff.failures(key);
  }
}

/**
 * A token bucket of `burst` tokens refilled at `qps` per second. Each {@link when} reserves one
 * token; when none is left it returns how long until the reserved token exists (like
 * golang.org/x/time/rate `Reserve`), so retries are spread out rather than refused.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters (every limiter records the failure). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    let delay = 0;
    for (const l of this.limiters) delay = Math.max(delay, l.when(key));
    return delay;
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    let n = 0;
    for (const l of this.limiters) n = Math.max(n, l.numRequeues(key));
    return n;
  }
}

export interface RateLimiterOptions {
  /** First retry delay of a key. Default 5 ms. */
  baseDelayMs?: number;
  /** Cap of a key's retry delay. Default 1 000 000 ms (1000 s). */
  maxDelayMs?: number;
  /** Refill rate of the shared bucket, tokens per second. Default 10. */
  qps?: number;
  /** Size of the shared bucket. Default 100. */
  burst?: number;
  clock?: Clock;
}

/** client-go's `DefaultTypedControllerRateLimiter`: per key 5 ms→1000 s, max-of a 10 qps / 100 burst bucket. */
export function defaultControllerRateLimiter(opts: RateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(opts.baseDelayMs ?? 5, opts.maxDelayMs ?? 1_000_000),
    new BucketRateLimiter(opts.qps ?? 10, opts.burst ?? 100, opts.clock ?? realClock),
  );
}
