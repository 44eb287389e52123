// Option parsers shared by the CLI commands.
import { InvalidArgumentError, Option } from 'commander';
// The module itself, not apimachinery's index: `--help` must stay light (see program.ts).
import { formatDuration, parseDuration } from '../apimachinery/time/duration.ts';

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

/**
 * The default /healthz, /readyz and /metrics port of each `peerpods run` command: one port each, so
 * any two of them run side by side on one host (in a pod each is given `:8081` explicitly).
 */
export const HEALTH_PROBE_PORTS = {
  'peerpod-controller': 8081,
  'peerpodconfig-controller': 8082,
  adaptor: 8083,
  webhook: 8084,
  'kvm-operator': 8085,
} as const;

/** The PeerPodConfig controller's own Lease: it may run beside the PeerPod controller, which holds upstream's ID. */
export const PEERPODCONFIG_LEADER_ELECTION_ID = 'peerpodconfig.confidentialcontainers.org';

/** `--health-probe-bind-address` with the command's own default port. */
export function healthProbeOption(command: keyof typeof HEALTH_PROBE_PORTS): Option {
  const port = HEALTH_PROBE_PORTS[command];
  return new Option('--health-probe-bind-address <addr>', '/healthz, /readyz and /metrics ([host]:port; 0 disables)')
    .argParser(parseBindAddress)
    .default({ host: '127.0.0.1', port }, `127.0.0.1:${port}`);
}

/** A duration flag whose default is shown as a duration (`10m0s`), not as milliseconds. */
export function durationOption(
  flags: string,
  description: string,
  defaultMs: number,
  parse: (value: string) => number = parseDurationFlag,
): Option {
  return new Option(flags, description).argParser(parse).default(defaultMs, showDuration(defaultMs));
}

function showDuration(ms: number): string {
  return ms % 1000 === 0 ? formatDuration(ms) : `${ms}ms`;
}
