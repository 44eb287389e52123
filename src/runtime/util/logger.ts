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

export function createLogger(name: string, opts: CreateLoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'info';
  if (opts.parent) return opts.parent.child({ component: name }, { level });
  const options: LoggerOptions = {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...opts.pino,
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** A logger that drops everything; the default in unit tests and for callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
