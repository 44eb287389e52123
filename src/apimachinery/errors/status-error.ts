// An error that is a metav1.Status: the HTTP code, the reason and the details kube-apiserver puts
// in its Status body. The server throws it; the client's ApiError extends it with what only a
// client knows (the request, Retry-After), so both sides answer the same reason checks.
import type { Status, StatusCause, StatusDetails } from '../meta/status.ts';

/** The reasons kube-apiserver itself uses (metav1.StatusReason); webhooks and clients may see others. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Timeout'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'TooManyRequests';

/**
 * `Reason` is the server's closed set by default; a client reading other servers' answers uses
 * `StatusError<string>`. The constructor does not infer it, so a misspelt reason fails to compile.
 */
export class StatusError<Reason extends string = StatusReason> extends Error {
  readonly code: number;
  readonly reason: Reason;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: NoInfer<Reason>, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /**
   * The body in metav1.Status's Go field order (k8s.io/apimachinery/pkg/apis/meta/v1/types.go),
   * which kube-apiserver's JSON encoder follows and clients quote byte for byte.
   */
  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
    };
    if (this.details) status.details = orderedDetails(this.details);
    status.code = this.code;
    return status;
  }
}

/** StatusDetails and StatusCause in their Go field order; absent fields stay absent (omitempty). */
function orderedDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name !== undefined) out.name = d.name;
  if (d.group !== undefined) out.group = d.group;
  if (d.kind !== undefined) out.kind = d.kind;
  if (d.uid !== undefined) out.uid = d.uid;
  if (d.causes !== undefined) {
    out.causes = d.causes.map((c) => {
      const cause: StatusCause = {};
      if (c.reason !== undefined) cause.reason = c.reason;
      if (c.message !== undefined) cause.message = c.message;
      if (c.field !== undefined) cause.field = c.field;
      return cause;
    });
  }
  if (d.retryAfterSeconds !== undefined) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

/** The reason client-go assumes for a code when the body carried none ("Unknown" when it has no guess). */
export function reasonForCode(code: number): StatusReason | 'Unknown' {
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
