// Typed API errors. The server's Status body decides the reason, so callers can branch on
// NotFound/Conflict/... the way client-go's apierrors helpers do.
import { realClock } from '../util/clock.ts';
import type { Clock } from '../util/clock.ts';
import type { Status } from './types.ts';

/** A non-2xx answer from the API server (or an ERROR event on a watch). */
export class ApiError extends Error {
  /** HTTP status code (from the Status body when the transport gave none). */
  readonly code: number;
  /** `Status.reason` ("NotFound", "Conflict", "Expired", ...); derived from the code when the body had none. */
  readonly reason: string;
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
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
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

export function isStatus(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

function apiError(e: unknown): ApiError | undefined {
  return e instanceof ApiError ? e : undefined;
}

export function isNotFound(e: unknown): boolean {
  const a = apiError(e);
  return !!a && (a.reason === 'NotFound' || (a.code === 404 && a.reason === 'Unknown'));
}

/** 409 that is an optimistic-concurrency failure (not AlreadyExists, which is also 409). */
export function isConflict(e: unknown): boolean {
  const a = apiError(e);
  return !!a && (a.reason === 'Conflict' || (a.code === 409 && a.reason !== 'AlreadyExists'));
}

export function isAlreadyExists(e: unknown): boolean {
  return apiError(e)?.reason === 'AlreadyExists';
}

export function isInvalid(e: unknown): boolean {
  const a = apiError(e);
  return !!a && (a.reason === 'Invalid' || a.code === 422);
}

/** 410: a resourceVersion or continue token older than the server's history ("Gone" or "Expired"). */
export function isGone(e: unknown): boolean {
  const a = apiError(e);
  return !!a && (a.code === 410 || a.reason === 'Gone' || a.reason === 'Expired');
}

export function isForbidden(e: unknown): boolean {
  return apiError(e)?.code === 403;
}

export function isUnauthorized(e: unknown): boolean {
  return apiError(e)?.code === 401;
}

export function isTooManyRequests(e: unknown): boolean {
  return apiError(e)?.code === 429;
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
  let delay = opts.initialDelayMs ?? 10;
  const maxDelay = opts.maxDelayMs ?? 1000;
  const jitter = opts.jitter ?? 0.1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConflict(e) || attempt >= attempts) throw e;
    }
    await clock.sleep(Math.round(delay + Math.random() * jitter * delay), opts.signal);
    delay = Math.min(maxDelay, delay * 2);
  }
}
