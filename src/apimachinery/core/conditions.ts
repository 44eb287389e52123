// Reading `status.conditions` of any object, typed or decoded JSON, without trusting its shape:
// stored objects and objects from other servers may hold anything there.

/** A condition as every core/v1 and metav1 condition has it; other fields vary by kind. */
export interface ConditionView {
  type: string;
  status?: unknown;
  [field: string]: unknown;
}

/** The condition of `type` in `obj.status.conditions`; undefined when absent or malformed. */
export function statusCondition(obj: object, type: string): ConditionView | undefined {
  const conditions = (obj as { status?: { conditions?: unknown } }).status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((c): c is ConditionView => (c as ConditionView | null)?.type === type);
}
