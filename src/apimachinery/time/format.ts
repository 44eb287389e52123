// metav1.Time and metav1.MicroTime as Go serializes them: RFC 3339 in UTC with a `Z`, whole
// seconds (the fraction is dropped, not rounded) or exactly six fractional digits. Go's parser
// rejects the three digits Date.toISOString() gives, so every timestamp written to an API object
// goes through here. Also Go's time.Time.String(), which validation messages embed.

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function toDate(at: Date | number): Date {
  return typeof at === 'number' ? new Date(at) : at;
}

function datePart(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function clockPart(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** metav1.Time of a Date or epoch milliseconds, e.g. `2024-05-01T10:00:00Z`. */
export function formatTime(at: Date | number): string {
  const d = toDate(at);
  return `${datePart(d)}T${clockPart(d)}Z`;
}

/**
 * metav1.MicroTime of a Date or epoch milliseconds, e.g. `2024-05-01T10:00:00.123000Z`.
 * `micros` (0–999 999) replaces the sub-second part when the source is finer than milliseconds
 * (a protobuf Timestamp's nanos, a client's fraction).
 */
export function formatMicroTime(at: Date | number, micros?: number): string {
  const d = toDate(at);
  const fraction = micros === undefined ? `${pad(d.getUTCMilliseconds(), 3)}000` : pad(micros, 6);
  return `${datePart(d)}T${clockPart(d)}.${fraction}Z`;
}

/** Parses a Time or MicroTime (any RFC 3339 time) to epoch milliseconds; NaN when unparseable. */
export function parseMicroTime(s: string | undefined | null): number {
  if (!s) return NaN;
  return Date.parse(s);
}

/** Go's time.Time.String() for a UTC instant, e.g. "2024-01-02 03:04:05.5 +0000 UTC". */
export function goTimeString(date: Date): string {
  const ms = date.getUTCMilliseconds();
  const fraction = ms ? `.${pad(ms, 3)}`.replace(/0+$/, '') : '';
  return `${datePart(date)} ${clockPart(date)}${fraction} +0000 UTC`;
}
