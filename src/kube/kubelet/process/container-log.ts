// The captured output of one container instance, as the container runtime's log file holds it:
// stdout and stderr lines with their arrival time, bounded in size (the oldest lines go first).
import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';
import type { ContainerLogQuery } from '../streams.ts';

export interface LogLine {
  /** Arrival time in nanoseconds since the epoch. */
  at: bigint;
  stream: 'stdout' | 'stderr';
  /** The line, with its newline unless it was the unfinished last one. */
  text: string;
}

/** RFC 3339 with nanoseconds, fixed width, in UTC (Go's `2006-01-02T15:04:05.000000000Z07:00`). */
export function formatLogTimestamp(at: bigint): string {
  const ms = Number(at / 1_000_000n);
  const subMs = String(at % 1_000_000n).padStart(6, '0');
  return new Date(ms).toISOString().replace(/Z$/, `${subMs}Z`);
}

let lastStamp = 0n;

/** Now, in nanoseconds: wall-clock milliseconds plus monotonic sub-millisecond digits, never repeating. */
function stamp(): bigint {
  const t = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  lastStamp = t > lastStamp ? t : lastStamp + 1n;
  return lastStamp;
}

export class ContainerLog {
  readonly lines: LogLine[] = [];
  private bytes = 0;
  private readonly partial = { stdout: '', stderr: '' };
  private readonly listeners = new Set<() => void>();
  closed = false;

  constructor(private readonly limitBytes: number) {}

  /** Appends a chunk of a stream's output; lines are cut at newlines. */
  write(stream: 'stdout' | 'stderr', chunk: string): void {
    let text = this.partial[stream] + chunk;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.push({ at: stamp(), stream, text: text.slice(0, nl + 1) });
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    this.partial[stream] = text;
    this.notify();
  }

  /** The instance exited: an unfinished last line is kept as it is, and followers end. */
  close(): void {
    if (this.closed) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream]) this.push({ at: stamp(), stream, text: this.partial[stream] });
      this.partial[stream] = '';
    }
    this.closed = true;
    this.notify();
  }

  /** Calls `fn` after every change; returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private push(line: LogLine): void {
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line.text);
    while (this.bytes > this.limitBytes && this.lines.length > 1) {
      this.bytes -= Buffer.byteLength(this.lines.shift()!.text);
    }
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }
}

/**
 * The lines a ContainerLogQuery selects, formatted: since, then tailLines, then timestamps, cut at
 * limitBytes; with follow, new lines stream until the instance exits or `signal` aborts.
 */
export function readContainerLog(log: ContainerLog, query: ContainerLogQuery, signal: AbortSignal): Readable {
  const out = new PassThrough();
  const sinceNs = query.since ? BigInt(query.since.getTime()) * 1_000_000n : undefined;
  let left = query.limitBytes ?? Infinity;
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    unsubscribe();
    signal.removeEventListener('abort', finish);
    out.end();
  };
  const emit = (line: LogLine): void => {
    if (done || (sinceNs !== undefined && line.at < sinceNs)) return;
    let text = query.timestamps ? `${formatLogTimestamp(line.at)} ${line.text}` : line.text;
    const size = Buffer.byteLength(text);
    if (size >= left) {
      text = Buffer.from(text).subarray(0, left).toString();
      left = 0;
    } else left -= size;
    out.write(text);
    if (left === 0) finish();
  };
  let selected = sinceNs === undefined ? log.lines : log.lines.filter((l) => l.at >= sinceNs);
  if (query.tailLines !== undefined) selected = query.tailLines === 0 ? [] : selected.slice(-query.tailLines);
  let sent = log.lines.length > 0 ? log.lines[log.lines.length - 1].at : -1n;
  let unsubscribe = (): void => undefined;
  for (const line of selected) emit(line);
  if (!query.follow || log.closed || done) {
    finish();
    return out;
  }
  unsubscribe = log.onChange(() => {
    let i = log.lines.length;
    while (i > 0 && log.lines[i - 1].at > sent) i--;
    for (const line of log.lines.slice(i)) emit(line);
    if (log.lines.length > 0) sent = log.lines[log.lines.length - 1].at;
    if (log.closed) finish();
  });
  signal.addEventListener('abort', finish);
  if (signal.aborted) finish();
  return out;
}
