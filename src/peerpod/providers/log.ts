// One default logger for the providers; callers (operators, tests) pass their own pino child.
// Log lines never carry config values: only keys, IDs and names.
import { pino, type Logger } from 'pino';

export type { Logger };

let fallback: Logger | undefined;

export function defaultLogger(): Logger {
  fallback ??= pino({ name: 'peerpod-providers', level: process.env.PEERPODS_LOG_LEVEL ?? 'info' });
  return fallback;
}
