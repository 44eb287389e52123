// Exponential backoff, the one formula behind relists, watch reconnects, conflict retries, the work
// queue's per-key retries, the embedded controllers' sync retries and the scheduler's unschedulable
// pods: `initial · factorⁿ`, capped.

/** What a backoff needs of a clock (k8s.io/utils/clock's PassiveClock): the time, in epoch ms. */
export interface PassiveClock {
  now(): number;
}

export interface BackoffOptions {
  /** First delay. */
  initialMs: number;
  /** Upper bound for the un-jittered delay. */
  maxMs: number;
  /** Growth factor per failure. Default 2. */
  factor?: number;
  /**
   * Jitter fraction: each delay is `d + random() * jitter * d`. `1` means up to double (client-go's
   * reflector uses 1.0, which keeps thousands of clients from relisting in lock-step). Default 0.
   */
  jitter?: number;
  /** After this long without a failure, the next delay starts from `initialMs` again. Default: never. */
  resetAfterMs?: number;
  /** Default: the system clock. */
  clock?: PassiveClock;
  random?: () => number;
}

/** Stateful backoff: call {@link next} after each failure, {@link reset} after a success. */
export class Backoff {
  private readonly opts: Required<Omit<BackoffOptions, 'resetAfterMs'>> & { resetAfterMs?: number };
  private current = 0;
  private lastFailureAt: number | undefined;

  constructor(opts: BackoffOptions) {
    this.opts = {
      factor: 2,
      jitter: 0,
      clock: { now: () => Date.now() },
      random: Math.random,
      ...opts,
    };
  }

  /** Delay to wait before the next attempt (and records a failure). */
  next(): number {
    const { clock, resetAfterMs, initialMs, maxMs, factor, jitter, random } = this.opts;
    const now = clock.now();
    if (this.lastFailureAt !== undefined && resetAfterMs !== undefined && now - this.lastFailureAt >= resetAfterMs) {
      this.current = 0;
    }
    this.lastFailureAt = now;
    this.current = this.current === 0 ? initialMs : Math.min(maxMs, this.current * factor);
    return Math.round(this.current + (jitter > 0 ? random() * jitter * this.current : 0));
  }

  /** The un-jittered delay the next failure would start from (0 when reset). */
  peekBase(): number {
    return this.current;
  }

  reset(): void {
    this.current = 0;
    this.lastFailureAt = undefined;
  }
}

/** The un-jittered delay for attempt `n` (0-based), capped. */
export function exponentialDelay(attempt: number, initialMs: number, maxMs: number, factor = 2): number {
  return Math.min(maxMs, initialMs * Math.pow(factor, Math.max(0, attempt)));
}

/**
 * Per-key exponential backoff (client-go's ItemExponentialFailureRateLimiter): the n-th consecutive
 * failure of a key waits `baseMs · 2ⁿ⁻¹`, capped at `maxMs`; keys back off independently.
 */
export class ItemExponentialBackoff {
  private readonly failed = new Map<string, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  /** Records one more failure of `key` and returns how long to wait before retrying it. */
  next(key: string): number {
    const n = this.failed.get(key) ?? 0;
    this.failed.set(key, n + 1);
    // Past ~2^60 the float loses meaning (and 0 · ∞ is NaN); the cap is reached long before.
    return exponentialDelay(Math.min(n, 60), this.baseMs, this.maxMs);
  }

  /** Clears the failure history of `key` (after a success, or when giving up on it). */
  forget(key: string): void {
    this.failed.delete(key);
  }

  /** Failures recorded for `key` since the last {@link forget}. */
  failures(key: string): number {
    return this.failed.get(key) ?? 0;
  }
}
