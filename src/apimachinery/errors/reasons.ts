// Reason checks in the manner of client-go's apierrors.IsNotFound, IsConflict, ...: they accept any
// thrown value and answer for StatusErrors (the server's, or the client's ApiError) only.
import { StatusError } from './status-error.ts';

function statusError(e: unknown): StatusError<string> | undefined {
  return e instanceof StatusError ? (e as StatusError<string>) : undefined;
}

export function isNotFound(e: unknown): boolean {
  const s = statusError(e);
  return !!s && (s.reason === 'NotFound' || (s.code === 404 && s.reason === 'Unknown'));
}

/** 409 that is an optimistic-concurrency failure (not AlreadyExists, which is also 409). */
export function isConflict(e: unknown): boolean {
  const s = statusError(e);
  return !!s && (s.reason === 'Conflict' || (s.code === 409 && s.reason !== 'AlreadyExists'));
}

export function isAlreadyExists(e: unknown): boolean {
  return statusError(e)?.reason === 'AlreadyExists';
}

export function isInvalid(e: unknown): boolean {
  const s = statusError(e);
  return !!s && (s.reason === 'Invalid' || s.code === 422);
}

/** 410: a resourceVersion or continue token older than the server's history ("Gone" or "Expired"). */
export function isGone(e: unknown): boolean {
  const s = statusError(e);
  return !!s && (s.code === 410 || s.reason === 'Gone' || s.reason === 'Expired');
}

export function isForbidden(e: unknown): boolean {
  return statusError(e)?.code === 403;
}

export function isUnauthorized(e: unknown): boolean {
  return statusError(e)?.code === 401;
}

export function isTooManyRequests(e: unknown): boolean {
  return statusError(e)?.code === 429;
}
