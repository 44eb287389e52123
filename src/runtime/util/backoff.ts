// Exponential backoff shared by relists, watch reconnects, conflict retries and the work queue.
import { realClock } from './clock.ts';
import type { Clock } from './clock.ts';

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
  clock?: Clock;
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
      clock: realClock,
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

/** Stateless helper: the un-jittered delay for attempt `n` (0-based), capped. */
export function exponentialDelay(attempt: number, initialMs: number, maxMs: number, factor = 2): number {
  return Math.min(maxMs, initialMs * Math.pow(factor, Math.max(0, attempt)));
}
