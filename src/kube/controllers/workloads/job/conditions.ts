// Job conditions, worded as kube-controller-manager's job controller writes them
// (pkg/controller/job/job_controller.go, kube 1.33): a Job that met its success criteria gets
// SuccessCriteriaMet, then Complete once no pod is left running or terminating; a failing Job gets
// FailureTarget, then Failed the same way. Both conditions of a pair carry the same reason and
// message.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';

export const REASON = {
  completionsReached: 'CompletionsReached',
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
} as const;

export const MESSAGE: Record<string, string> = {
  [REASON.completionsReached]: 'Reached expected number of succeeded pods',
  [REASON.backoffLimitExceeded]: 'Job has reached the specified backoff limit',
  [REASON.deadlineExceeded]: 'Job was active longer than specified deadline',
};

export function jobCondition(type: string, status: string, reason: string, message: string, now: string): JsonObject {
  return { type, status, lastProbeTime: now, lastTransitionTime: now, reason, message };
}

export function findCondition(conditions: JsonObject[], type: string): JsonObject | undefined {
  return conditions.find((c) => c.type === type);
}

export function isTrue(conditions: JsonObject[], type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * Sets a condition as the job controller's ensureJobConditionStatus does: a new one is appended;
 * an existing one changes (with new times) only when its status does.
 */
export function setCondition(conditions: JsonObject[], next: JsonObject): JsonObject[] {
  const old = findCondition(conditions, String(next.type));
  if (!old) return [...conditions, next];
  if (old.status === next.status) return conditions;
  return conditions.map((c) => (c === old ? next : c));
}
