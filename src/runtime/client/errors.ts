// The client's API errors: a StatusError (apimachinery's, shared with the server) that also knows the
// request that failed and the server's Retry-After. The reason checks (isNotFound, isConflict, ...)
// are apimachinery's; they answer for ApiErrors because ApiError is a StatusError.
import { StatusError, isConflict, reasonForCode } from '../../apimachinery/errors/index.ts';
import { isStatus, type Status } from '../../apimachinery/meta/index.ts';
import { Backoff } from '../../apimachinery/backoff.ts';
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';

export {
  isNotFound,
  isConflict,
  isAlreadyExists,
  isInvalid,
  isGone,
  isForbidden,
  isUnauthorized,
  isTooManyRequests,
} from '../../apimachinery/errors/index.ts';
export { isStatus } from '../../apimachinery/meta/index.ts';

/**
 * A non-2xx answer from the API server (or an ERROR event on a watch). `reason` is whatever the
 * server said ("NotFound", "Conflict", "Expired", a webhook's own), or derived from the code.
 */
export class ApiError extends StatusError<string> {
  readonly status?: Status;
  /** From the `Retry-After` header or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds?: number;
  /** Method and path of the failed request, for logs. */
  readonly request?: { method: string; path: string };

  constructor(
    code: number,
    reason: string,
    message: string,
    init: { status?: Status; retryAfterSeconds?: number; request?: { method: string; path: string } } = {},
  ) {
    super(code, reason, message, init.status?.details);
    this.name = 'ApiError';
    if (init.status) this.status = init.status;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.request) this.request = init.request;
  }

  /** Builds the error from a response body that may or may not be a Status. */
  static fromResponse(
    code: number,
    body: unknown,
    init: { retryAfterSeconds?: number; request?: { method: string; path: string } } = {},
  ): ApiError {
    const status = isStatus(body) ? body : undefined;
    const reason = status?.reason || reasonForCode(code);
    const text =
      status?.message ||
      (typeof body === 'string' && body.length > 0 ? body.slice(0, 500) : `the server responded with ${code}`);
    const retryAfterSeconds = init.retryAfterSeconds ?? status?.details?.retryAfterSeconds;
    return new ApiError(code, reason, text, {
      ...(status ? { status } : {}),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      ...(init.request ? { request: init.request } : {}),
    });
  }

  /** From the Status object of a watch ERROR event. */
  static fromStatus(status: Status): ApiError {
    const code = typeof status.code === 'number' ? status.code : 500;
    return ApiError.fromResponse(code, status);
  }
}

export interface RetryOnConflictOptions {
  /** Total attempts, the first included. Default 5 (client-go's `DefaultRetry.Steps`). */
  attempts?: number;
  /** First delay; doubles each retry. Default 10 ms (client-go `DefaultRetry`). */
  initialDelayMs?: number;
  /** Cap per delay. Default 1000 ms. */
  maxDelayMs?: number;
  /** Random extra of up to `jitter × delay`. Default 0.1. */
  jitter?: number;
  signal?: AbortSignal;
  clock?: Clock;
}

/**
 * Runs `fn` until it does not fail with a 409 Conflict. `fn` must re-read the object each time:
 * retrying the same stale write only conflicts again. Other errors, and the last conflict, propagate.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, opts: RetryOnConflictOptions = {}): Promise<T> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  const clock = opts.clock ?? realClock;
  const backoff = new Backoff({
    initialMs: opts.initialDelayMs ?? 10,
    maxMs: opts.maxDelayMs ?? 1000,
    jitter: opts.jitter ?? 0.1,
    clock,
  });
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConflict(e) || attempt >= attempts) throw e;
    }
    await clock.sleep(backoff.next(), opts.signal);
  }
}
