// Option parsers shared by the CLI commands.
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../apimachinery/index.ts';

export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

/** A Go-style duration flag ("10m", "1m30s", "500ms", "0"), in ms. */
export function parseDurationFlag(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError('must be a duration such as 90s, 10m, 1h30m or 500ms');
  return ms;
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
