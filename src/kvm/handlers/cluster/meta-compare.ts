// Comparisons the networking and RBAC handlers share. Only our own labels and annotations are
// compared (others may add theirs), and objects are compared as JSON regardless of key order (the
// API server may return fields in another order than we sent them).

/** True when every key of `want` is in `have` with the same value. */
export function isSubset(have: Record<string, string> = {}, want: Record<string, string> = {}): boolean {
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, x]) => [k, canonical(x)]));
  }
  return v;
}

/** Deep equality as JSON: key order and undefined-valued keys do not matter, array order does. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
