// metav1.MicroTime: RFC 3339 with exactly six fractional digits. Go's parser rejects the three
// digits Date.toISOString() gives ("...00.123Z"), so Lease timestamps must be written this way.

/** Formats epoch milliseconds as a MicroTime string, e.g. `2024-05-01T10:00:00.123000Z`. */
export function formatMicroTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // always YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 23)}000Z`;
}

/** Parses a MicroTime (or any RFC 3339 time) to epoch milliseconds; NaN when unparseable. */
export function parseMicroTime(s: string | undefined | null): number {
  if (!s) return NaN;
  return Date.parse(s);
}
