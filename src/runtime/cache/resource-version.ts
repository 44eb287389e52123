// Kubernetes calls resourceVersions opaque, but every real server (etcd revisions, kine, ours) issues
// increasing decimal integers, and KEP-5647 makes that comparability official. We compare them as
// integers when both are decimal and fall back to equality otherwise.

const DECIMAL = /^\d+$/;

/** <0, 0, >0 like a comparator; undefined when either is not a decimal integer. */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `seen` is at or past `target` (or equal to it, for non-numeric RVs). */
export function resourceVersionReached(seen: string, target: string): boolean {
  if (seen === target) return true;
  const c = compareResourceVersions(seen.replace(/^0+(?=\d)/, ''), target.replace(/^0+(?=\d)/, ''));
  return c !== undefined && c >= 0;
}
