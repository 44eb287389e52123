// Client-side request limiter. Off by default: modern API servers protect themselves with
// API Priority and Fairness (controller-runtime also disables client-go's 5 qps / 10 burst).
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';

export interface RateLimit {
  /** Sustained requests per second. */
  qps: number;
  /** Requests allowed at once after an idle period. */
  burst: number;
}

/** Token bucket with reservations: each caller takes a token now and sleeps off any debt. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;

  constructor(
    limit: RateLimit,
    private readonly clock: Clock = realClock,
  ) {
    if (!(limit.qps > 0) || !(limit.burst >= 1)) throw new RangeError('rateLimit needs qps > 0 and burst >= 1');
    this.qps = limit.qps;
    this.burst = Math.floor(limit.burst);
    this.tokens = this.burst;
    this.last = clock.now();
  }

  /** Waits until the caller may send a request. Rejects (returning its token) when `signal` aborts. */
  async take(signal?: AbortSignal): Promise<void> {
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    const waitMs = Math.ceil((-this.tokens / this.qps) * 1000);
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (e) {
      this.tokens += 1;
      throw e;
    }
  }

  /** Tokens available right now (may be negative while callers wait). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
  }
}
