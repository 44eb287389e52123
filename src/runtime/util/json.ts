// JSON-level comparison and RFC 7386 merge-patch generation. Objects are compared as they would be
// sent (undefined fields dropped), so a mutate function that sets `x: undefined` is not a change.
import { cloneJson, deepEqual, isObject } from '../../apimachinery/json/index.ts';

/**
 * The RFC 7386 merge patch turning `before` into `after`, or undefined when they are equal. Removed
 * keys become `null`; arrays are replaced whole (merge patch cannot edit them in place).
 */
export function mergePatchDiff(before: unknown, after: unknown): unknown {
  if (!isObject(before) || !isObject(after)) {
    return deepEqual(before, after) ? undefined : (cloneJson(after) ?? null);
  }
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(before)) {
    if (before[k] !== undefined && after[k] === undefined) patch[k] = null;
  }
  for (const k of Object.keys(after)) {
    if (after[k] === undefined) continue;
    const d = before[k] === undefined ? cloneJson(after[k]) : mergePatchDiff(before[k], after[k]);
    if (d !== undefined) patch[k] = d;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
