// Durations as Kubernetes and Go write them: table ages exactly as kube-apiserver renders them
// (kubectl prints the server's cell verbatim), Go's Duration.String() for messages, and the
// Go-style durations that flags take.

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

/** Go's Duration.String() to whole seconds: "1h2m3s", "42m0s", "15s"; negatives read as "0s". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / SECOND));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR };

/**
 * A Go-style duration as upstream flags take them ("10m", "1m30s", "500ms", "1.5h", "0") in
 * milliseconds, rounded; undefined when `value` is not one.
 */
export function parseDuration(value: string): number | undefined {
  if (value === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * UNITS[m[2]];
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== value.length) return undefined;
  return Math.round(total);
}
