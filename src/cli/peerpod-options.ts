// Option parsers of the peerpod commands.
import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style durations as upstream flags take them: "10m", "1m30s", "500ms", "0". Returns ms. */
export function parseDuration(value: string): number {
  if (value === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * UNITS[m[2]];
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== value.length) {
    throw new InvalidArgumentError('must be a duration such as 90s, 10m, 1h30m or 500ms');
  }
  return Math.round(total);
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** ":8081" → all interfaces; "127.0.0.1:8081"; "0" disables. */
export function parseBindAddress(value: string): { host: string; port: number } | false {
  if (value === '0') return false;
  const i = value.lastIndexOf(':');
  const port = Number(value.slice(i + 1));
  if (i < 0 || !/^\d+$/.test(value.slice(i + 1)) || port > 65535) {
    throw new InvalidArgumentError('must be [host]:port, e.g. :8081 or 127.0.0.1:8081, or 0 to disable');
  }
  return { host: value.slice(0, i) || '0.0.0.0', port };
}
