// JSON-level comparison and RFC 7386 merge-patch generation. Objects are compared as they would be
// sent (undefined fields dropped), so a mutate function that sets `x: undefined` is not a change.

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy as JSON would carry it. */
export function jsonClone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Deep equality as JSON: key order and undefined-valued keys do not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => b[k] !== undefined && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The RFC 7386 merge patch turning `before` into `after`, or undefined when they are equal. Removed
 * keys become `null`; arrays are replaced whole (merge patch cannot edit them in place).
 */
export function mergePatchDiff(before: unknown, after: unknown): unknown {
  if (!isPlainObject(before) || !isPlainObject(after)) {
    return jsonEqual(before, after) ? undefined : (jsonClone(after) ?? null);
  }
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(before)) {
    if (before[k] !== undefined && after[k] === undefined) patch[k] = null;
  }
  for (const k of Object.keys(after)) {
    if (after[k] === undefined) continue;
    const d = before[k] === undefined ? jsonClone(after[k]) : mergePatchDiff(before[k], after[k]);
    if (d !== undefined) patch[k] = d;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
