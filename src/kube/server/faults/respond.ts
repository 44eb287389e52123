// The answers of injected error statuses, shaped as kube-apiserver's own: the Status its filters
// and storage produce for each code, `Retry-After` as responsewriters.ErrorNegotiated sets it,
// and an expired watch as the watch cache reports it (an ERROR event on an open stream).
import type { ServerResponse } from 'node:http';
import { reasonForCode, StatusError, type StatusReason } from '../../../apimachinery/errors/index.ts';
import { sendJson } from '../resource/response.ts';
import { WatchStream } from '../resource/watch-stream.ts';
import { encodeWatchLine } from '../resource/watch-lines.ts';

export interface StatusFault {
  code: number;
  message?: string;
  retryAfterSeconds?: number;
}

/** kube's own reason and text for the codes its server answers by itself. */
const KUBE_STATUSES: Record<number, { reason: StatusReason; message: string } | undefined> = {
  // The max-in-flight filter's text (apiserver/pkg/server/filters/maxinflight.go).
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: 'Internal error occurred: injected fault' },
  503: { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' },
  // apiserver/pkg/server/filters/timeout.go: NewTimeoutError(..., 0).
  504: {
    reason: 'Timeout',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  },
};

/** The Status kube sends for `code`; `expired` names the revisions in a 410's message. */
export function faultStatus(fault: StatusFault, expired: () => { requested: string; oldest: number }): StatusError {
  if (fault.code === 410) {
    // The watch cache's and etcd3 store's "too old resource version" (storage.NewTooOldResourceVersionError).
    const { requested, oldest } = expired();
    return new StatusError(410, 'Expired', fault.message ?? `too old resource version: ${requested} (${oldest})`);
  }
  // maxinflight.go answers 429 with `Retry-After: 1`.
  const retryAfterSeconds = fault.retryAfterSeconds ?? (fault.code === 429 ? 1 : undefined);
  const known = KUBE_STATUSES[fault.code];
  const reason = known?.reason ?? reasonForCode(fault.code);
  const message = fault.message ?? known?.message ?? `injected fault: ${fault.code} ${reason}`;
  // NewTimeoutError always carries details, empty when there is no retry period.
  const details = retryAfterSeconds !== undefined ? { retryAfterSeconds } : fault.code === 504 ? {} : undefined;
  return new StatusError<string>(fault.code, reason, message, details) as StatusError;
}

/** Sends the Status as an ordinary error answer. */
export function sendStatus(res: ServerResponse, err: StatusError): void {
  const seconds = err.details?.retryAfterSeconds;
  if (seconds !== undefined && seconds > 0) res.setHeader('Retry-After', String(seconds));
  sendJson(res, err.code, JSON.stringify(err.toStatus()));
}

/** A watch that starts, reports the Status as an ERROR event and ends. */
export function sendWatchError(res: ServerResponse, err: StatusError): void {
  const stream = new WatchStream(res);
  stream.write(encodeWatchLine('ERROR', JSON.stringify(err.toStatus())));
  stream.close();
}
