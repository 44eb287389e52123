// A PodStreams for tests that does real work: exec spawns the command as a local process with
// its pipes, port-forward connects to a local TCP server standing in for the container's port,
// and logs serve a generated log (one line a second before the test started) filtered as the
// kubelet filters. Every process it starts is recorded so a test can check none outlives it.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type { JsonObject } from '../../../../src/apimachinery/index.ts';
import type { ContainerLogQuery, ExecRequest, ExecSession, PodStreams } from '../../../../src/kube/kubelet/streams.ts';

export interface LogLine {
  at: Date;
  text: string;
}

export class ProcessPodStreams implements PodStreams {
  readonly children: ChildProcess[] = [];
  readonly logQueries: ContainerLogQuery[] = [];
  readonly execRequests: ExecRequest[] = [];
  /** Container port → the local port actually listening for it. */
  readonly ports = new Map<number, number>();
  /** The generated log of every container. */
  readonly lines: LogLine[];
  private readonly followers = new Set<PassThrough>();

  constructor(lineCount = 20) {
    const start = Date.now() - lineCount * 1000;
    this.lines = Array.from({ length: lineCount }, (_, i) => ({
      at: new Date(start + i * 1000),
      text: `line ${i + 1}`,
    }));
  }

  exec(pod: JsonObject, request: ExecRequest): Promise<ExecSession> {
    this.execRequests.push(request);
    const containers = ((pod.spec as { containers: Array<{ name: string }> }).containers ?? []).map((c) => c.name);
    if (!containers.includes(request.container)) {
      return Promise.reject(new Error(`container not found ("${request.container}")`));
    }
    const child = spawn(request.command[0] ?? '', request.command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    this.children.push(child);
    const exited = new Promise<{ exitCode: number } | { error: string }>((resolve) => {
      child.once('error', (e) => resolve({ error: e.message }));
      child.once('exit', (code, signal) => resolve({ exitCode: code ?? (signal ? 128 + 9 : 1) }));
    });
    if (!request.stdin) child.stdin.end();
    // Node discards a child's unread output when it exits; the server may join the pipes later.
    const stdout = child.stdout.pipe(new PassThrough());
    const stderr = child.stderr.pipe(new PassThrough());
    return Promise.resolve({
      stdin: request.stdin ? child.stdin : undefined,
      stdout,
      stderr: request.tty ? undefined : stderr,
      resize: () => undefined,
      exited,
      kill: () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      },
    });
  }

  portForward(_pod: JsonObject, port: number): Promise<Duplex> {
    const local = this.ports.get(port);
    if (local === undefined)
      return Promise.reject(new Error(`dial tcp4 127.0.0.1:${port}: connect: connection refused`));
    return new Promise((resolve, reject) => {
      const socket = connect(local, '127.0.0.1');
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
  }

  logs(_pod: JsonObject, query: ContainerLogQuery, signal: AbortSignal): Promise<Readable> {
    this.logQueries.push(query);
    let lines = this.lines.filter((l) => !query.since || l.at >= query.since);
    if (query.tailLines !== undefined) lines = lines.slice(Math.max(0, lines.length - query.tailLines));
    const out = new PassThrough();
    let budget = query.limitBytes ?? Infinity;
    const emit = (line: LogLine): void => {
      if (budget <= 0) return;
      const text = Buffer.from(`${query.timestamps ? `${rfc3339Nano(line.at)} ` : ''}${line.text}\n`);
      const part = text.subarray(0, Math.min(text.length, budget));
      budget -= part.length;
      out.write(part);
      if (budget <= 0) out.end();
    };
    for (const line of lines) emit(line);
    if (!query.follow || budget <= 0) out.end();
    else {
      out.on('close', () => this.followers.delete(out));
      this.followers.add(out);
      (out as PassThrough & { emitLine?: (l: LogLine) => void }).emitLine = emit;
    }
    signal.addEventListener('abort', () => out.destroy(), { once: true });
    return Promise.resolve(out);
  }

  /** Appends a line to the log and to every follower. */
  append(text: string): void {
    const line = { at: new Date(), text };
    this.lines.push(line);
    for (const f of this.followers) (f as PassThrough & { emitLine?: (l: LogLine) => void }).emitLine?.(line);
  }

  /** The container exits: followers' streams end. */
  endFollowers(): void {
    for (const f of this.followers) f.end();
    this.followers.clear();
  }

  get followerCount(): number {
    return this.followers.size;
  }

  /** Processes started by exec that are still running (their /proc entry exists). */
  running(): number[] {
    return this.children
      .filter((c) => c.pid !== undefined && c.exitCode === null && c.signalCode === null)
      .map((c) => c.pid as number);
  }
}

/** The kubelet's fixed-width RFC 3339 nano timestamp (`2006-01-02T15:04:05.000000000Z07:00`). */
export function rfc3339Nano(at: Date): string {
  return `${at.toISOString().slice(0, 19)}.${String(at.getUTCMilliseconds()).padStart(3, '0')}000000Z`;
}
