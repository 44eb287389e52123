// Decodes a watch response body: one JSON event per line. A bad line is reported and skipped so one
// corrupt object never tears down a watch that is otherwise healthy.
import type { WatchEvent, WatchEventType } from './types.ts';

const EVENT_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Lines longer than this are a broken stream, not an object; the watch fails and is restarted. */
export const MAX_WATCH_LINE_BYTES = 64 * 1024 * 1024;

export class MalformedWatchEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedWatchEventError';
  }
}

/** Parses one line; throws {@link MalformedWatchEventError} when it is not a watch event. */
export function parseWatchLine<T>(line: string): WatchEvent<T> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new MalformedWatchEventError(`invalid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null) throw new MalformedWatchEventError('event is not an object');
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
    throw new MalformedWatchEventError(`unknown event type ${JSON.stringify(type)}`);
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    throw new MalformedWatchEventError(`${type} event without an object`);
  }
  return { type: type as WatchEventType, object: object as T };
}

/** Turns a byte stream into watch events, calling `onMalformed` for lines that are not events. */
export async function* decodeWatchStream<T>(
  chunks: AsyncIterable<Buffer | string>,
  onMalformed: (line: string, error: Error) => void,
): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  for await (const chunk of chunks) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line.length === 0) continue;
      const ev = tryParse<T>(line, onMalformed);
      if (ev) yield ev;
    }
    if (pending.length > MAX_WATCH_LINE_BYTES) {
      throw new MalformedWatchEventError(`watch line exceeds ${MAX_WATCH_LINE_BYTES} bytes without a newline`);
    }
  }
  const rest = (pending + decoder.decode()).trim();
  if (rest.length > 0) {
    const ev = tryParse<T>(rest, onMalformed);
    if (ev) yield ev;
  }
}

function tryParse<T>(line: string, onMalformed: (line: string, error: Error) => void): WatchEvent<T> | undefined {
  try {
    return parseWatchLine<T>(line);
  } catch (e) {
    onMalformed(line, e as Error);
    return undefined;
  }
}
