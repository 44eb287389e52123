// The Status errors kube-apiserver answers for webhook outcomes
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/errors and util/webhook).
import { StatusError, badRequest, internalError, type StatusReason } from '../../apimachinery/errors/index.ts';
import type { Status, StatusDetails } from '../../apimachinery/meta/index.ts';

/**
 * A webhook's own Status, which may carry any reason (or none) the webhook chose; also a webhook
 * failure kube reports as a plain error (no reason, StatusReasonUnknown).
 */
export class WebhookStatusError extends StatusError {
  private readonly rawReason: string;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(code, (reason || 'BadRequest') as StatusReason, message, details);
    this.rawReason = reason;
  }

  override toStatus(): Status {
    const s = super.toStatus();
    if (this.rawReason) s.reason = this.rawReason;
    else delete s.reason;
    return s;
  }
}

export interface ReviewStatus {
  code?: number;
  message?: string;
  reason?: string;
  details?: StatusDetails;
}

/** webhookerrors.ToStatusErr: a denial keeps the webhook's code (at least 400) and reason. */
export function deniedError(webhook: string, status: ReviewStatus | undefined): StatusError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const code = typeof status?.code === 'number' && status.code >= 400 ? status.code : 400;
  const message = status?.message
    ? `${deniedBy}: ${status.message}`
    : status?.reason
      ? `${deniedBy}: ${status.reason}`
      : `${deniedBy} without explanation`;
  return new WebhookStatusError(code, status?.reason ?? '', message, status?.details);
}

/**
 * webhookutil.ErrCallingWebhook: the webhook could not be called or answered nonsense. The
 * webhook's failurePolicy decides whether it rejects the request.
 */
export class CallError extends Error {
  constructor(
    readonly webhook: string,
    readonly why: string,
  ) {
    super(`failed calling webhook "${webhook}": ${why}`);
    this.name = 'CallError';
  }

  toStatusError(): StatusError {
    return internalError(this.message);
  }
}

export function dryRunUnsupported(webhook: string): StatusError {
  return badRequest(`admission webhook "${webhook}" does not support dry run`);
}

/** Errors outside the failurePolicy: the webhook answered, but with a patch that cannot be used. */
export function patchError(webhook: string, why: string): StatusError {
  return internalError(`admission webhook "${webhook}" returned an unusable patch: ${why}`);
}
