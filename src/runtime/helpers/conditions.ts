// metav1.Condition helpers, as apimachinery's meta.SetStatusCondition: lastTransitionTime moves only
// when the status flips, so it tells when the condition last changed, not when we last looked.
import { formatTime } from '../../apimachinery/time/index.ts';
import type { KubeObject } from '../client/types.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  /** metav1.Time (RFC 3339, seconds). */
  lastTransitionTime: string;
  /** CamelCase, machine-readable. */
  reason: string;
  message: string;
}

export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'message'> & {
  message?: string;
  lastTransitionTime?: string;
};

/**
 * Sets `input` in `conditions` (in place). An existing condition of the same type keeps its
 * lastTransitionTime unless the status changes. Returns true when anything changed.
 */
export function setCondition(conditions: Condition[], input: ConditionInput, nowMs: number = Date.now()): boolean {
  const existing = conditions.find((c) => c.type === input.type);
  const message = input.message ?? '';
  if (!existing) {
    conditions.push({
      type: input.type,
      status: input.status,
      ...(input.observedGeneration !== undefined ? { observedGeneration: input.observedGeneration } : {}),
      lastTransitionTime: input.lastTransitionTime ?? formatTime(nowMs),
      reason: input.reason,
      message,
    });
    return true;
  }
  let changed = false;
  if (existing.status !== input.status) {
    existing.status = input.status;
    existing.lastTransitionTime = input.lastTransitionTime ?? formatTime(nowMs);
    changed = true;
  }
  if (existing.reason !== input.reason) {
    existing.reason = input.reason;
    changed = true;
  }
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (input.observedGeneration !== undefined && existing.observedGeneration !== input.observedGeneration) {
    existing.observedGeneration = input.observedGeneration;
    changed = true;
  }
  return changed;
}

/**
 * Sets a condition in `obj.status.conditions` (created if missing), with observedGeneration defaulting
 * to `obj.metadata.generation`. Returns true when anything changed.
 */
export function setStatusCondition(obj: KubeObject, input: ConditionInput, nowMs?: number): boolean {
  const status = (obj.status ??= {}) as { conditions?: Condition[] };
  status.conditions ??= [];
  const gen = input.observedGeneration ?? obj.metadata.generation;
  return setCondition(
    status.conditions,
    { ...input, ...(gen !== undefined ? { observedGeneration: gen } : {}) },
    nowMs,
  );
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function isConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/** Removes the condition of `type` (in place); true when one was removed. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}
