// Time and duration text exactly as kube-apiserver renders it: table ages (kubectl prints the
// server's cell verbatim), metav1.Time / metav1.MicroTime JSON, and Go's time.Time String()
// where validation messages embed timestamps.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * duration.HumanDuration (apimachinery 1.33): about 2-3 significant figures, e.g. "70s",
 * "3m10s", "47h", "2d1h", "2y1d". Up to 2 s in the future reads as "0s" (clock skew);
 * further in the future is "<invalid>".
 */
export function humanDuration(ms: number): string {
  if (Number.isNaN(ms)) return '<invalid>';
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24);
    const dy = days % 365;
    return dy === 0 ? `${Math.trunc(days / 365)}y` : `${Math.trunc(days / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** duration.ShortHumanDuration: one unit only ("59s", "1m", "23h", "364d", "1y"). */
export function shortHumanDuration(ms: number): string {
  if (Number.isNaN(ms)) return '<invalid>';
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function datePart(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function clockPart(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** metav1.Time: RFC 3339 in UTC, sub-second part dropped (not rounded). */
export function formatTime(date: Date): string {
  return `${datePart(date)}T${clockPart(date)}Z`;
}

/** metav1.MicroTime: always six fractional digits; Go clients reject fewer. */
export function formatMicroTime(date: Date): string {
  return `${datePart(date)}T${clockPart(date)}.${pad(date.getUTCMilliseconds(), 3)}000Z`;
}

/** Go's time.Time.String() for a UTC instant, e.g. "2024-01-02 03:04:05.5 +0000 UTC". */
export function goTimeString(date: Date): string {
  const ms = date.getUTCMilliseconds();
  const fraction = ms ? `.${pad(ms, 3)}`.replace(/0+$/, '') : '';
  return `${datePart(date)} ${clockPart(date)}${fraction} +0000 UTC`;
}
