// Tag filtering shared by every provider: a filter matches when each of its pairs is present with
// the same value (exact, case-sensitive), like EC2's `tag:<k>` filters.

export function matchesTags(tags: Readonly<Record<string, string>>, filter: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(filter)) {
    if (!Object.hasOwn(tags, k) || tags[k] !== v) return false;
  }
  return true;
}

/** Later maps win: configured TAGS first, then the request's own tags. */
export function mergeTags(...maps: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> {
  return Object.assign({}, ...maps) as Record<string, string>;
}
