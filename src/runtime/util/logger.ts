// One logger factory for the runtime so every component logs structured JSON with the same
// redaction rules; credentials must never reach a log line.
import { pino } from 'pino';
import type { Logger, LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** Paths that may carry credentials in anything we log (request options, kubeconfigs, headers). */
const REDACT_PATHS = [
  'token',
  'bearerToken',
  'password',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.token',
  '*.bearerToken',
  '*.password',
  '*.authorization',
  '*.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  'client-key-data',
  '*.client-key-data',
  'keyData',
  '*.keyData',
];

export interface CreateLoggerOptions {
  /** Defaults to `LOG_LEVEL`, then `info`. */
  level?: string;
  /** Parent logger; the new one becomes its child with `{ component: name }`. */
  parent?: Logger;
  /** Extra pino options (ignored when `parent` is given). */
  pino?: LoggerOptions;
  /** Destination stream; defaults to stdout. Tests pass a sink here. */
  destination?: NodeJS.WritableStream;
}

/** The keys every line carries for the process; a field of the same name goes under `fields`. */
const BASE_KEYS = ['level', 'time', 'pid', 'hostname', 'name', 'msg'] as const;
const FIELDS_KEY = 'fields';

/**
 * A child's bindings, kept apart from pino's: pino writes each child's bindings after its parent's
 * as text, so `component` bound twice (or bound and logged) appeared twice in one JSON line, which
 * JSON readers resolve differently. Here a child's key replaces its parent's and a logged field
 * replaces a bound one, so every key appears once.
 */
const bound = new WeakMap<object, Record<string, unknown>>();

function mergeFields(fields: Record<string, unknown>, bindings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...bindings, ...fields };
  const clashing = BASE_KEYS.filter((k) => k in out);
  if (clashing.length === 0) return out;
  const moved: Record<string, unknown> = {};
  for (const k of clashing) {
    moved[k] = out[k];
    delete out[k];
  }
  out[FIELDS_KEY] = { ...(out[FIELDS_KEY] as Record<string, unknown> | undefined), ...moved };
  return out;
}

/** Children are children of the root with their bindings merged, so no key is written twice. */
function withBindings(root: Logger, bindings: Record<string, unknown>, level: string): Logger {
  const logger = root.child({}, { level });
  bound.set(logger, bindings);
  const child = (more: Record<string, unknown>, options?: { level?: string }): Logger =>
    withBindings(root, { ...bindings, ...more }, options?.level ?? logger.level);
  Object.defineProperty(logger, 'child', { value: child, configurable: true, writable: true });
  return logger;
}

export function createLogger(name: string, opts: CreateLoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'info';
  if (opts.parent) return opts.parent.child({ component: name }, { level });
  const options: LoggerOptions = {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...opts.pino,
    mixin: (_fields: object, _level: number, logger: object) => bound.get(logger) ?? {},
    mixinMergeStrategy: (fields: object, bindings: object) =>
      mergeFields(fields as Record<string, unknown>, bindings as Record<string, unknown>),
  };
  const root = opts.destination ? pino(options, opts.destination) : pino(options);
  return withBindings(root, {}, level);
}

/** A logger that drops everything; the default in unit tests and for callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
