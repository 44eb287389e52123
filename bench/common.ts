// Shared helpers of the benchmarks: percentiles, a minimal HTTPS client for setup calls, child
// processes (each benchmark side that must not share a thread with the server runs in one) and
// memory sampling.
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { Agent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes on one machine. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

/** min, p50, p99 and max of latencies (any order), each rounded to 0.1. */
export function latencyStats(xs: readonly number[]): { min: number; p50: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    min: round(s[0] ?? NaN),
    p50: round(percentile(s, 50)),
    p99: round(percentile(s, 99)),
    max: round(s[s.length - 1] ?? NaN),
  };
}

export function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export const MiB = 1024 * 1024;

/** Where and how to reach an HTTPS server (the control plane or the bare baseline). */
export interface Endpoint {
  url: string;
  caPem: string;
  token?: string;
}

export interface HttpResult {
  status: number;
  body: string;
}

/** One HTTPS call (setup and sanity checks; the load itself runs in workers/load.ts). */
export function call(ep: Endpoint, method: string, path: string, body?: unknown, agent?: Agent): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, ep.url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        method,
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        ca: ep.caPem,
        agent,
        headers: {
          accept: 'application/json',
          ...(ep.token ? { authorization: `Bearer ${ep.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

export async function mustCall(ep: Endpoint, method: string, path: string, body?: unknown): Promise<string> {
  const r = await call(ep, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
  return r.body;
}

/**
 * Calls `onLine` with each complete line of a watch response and when its chunk arrived (the
 * receiving side of every watch latency figure).
 */
export function eachLine(res: IncomingMessage, onLine: (line: string, arrivedMs: number) => void): void {
  res.setEncoding('utf8');
  let pending = '';
  res.on('data', (chunk: string) => {
    const arrivedMs = nowMs();
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      onLine(line, arrivedMs);
    }
  });
}

/** A small, realistic ConfigMap: a few labels and three data keys. */
export function configMap(name: string, namespace: string, i = 0): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'bench', tier: `t${i % 10}` } },
    data: {
      'log.level': 'info',
      'feature.flags': `alpha=${i % 2 === 0},beta=true,gamma=false`,
      'app.properties': `server.port=8080\nserver.threads=${8 + (i % 8)}\ncache.ttl=300s\n`,
    },
  };
}

export interface ChildOptions {
  /** Extra node flags (e.g. --expose-gc). */
  nodeFlags?: string[];
  env?: Record<string, string>;
  /** Called for every message that is not the final result. */
  onMessage?: (msg: unknown, send: (m: unknown) => void) => void;
  timeoutMs?: number;
}

/**
 * Runs `bench/workers/<script>` in a child node process (tsx loader) with `input` as its first
 * message; resolves with the message it sends as `{ result }`.
 */
export function runWorker<R>(script: string, input: unknown, opts: ChildOptions = {}): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = fork(join(BENCH_DIR, 'workers', script), [], {
      execArgv: ['--import', 'tsx', ...(opts.nodeFlags ?? [])],
      env: { ...process.env, LOG_LEVEL: 'silent', ...opts.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`worker ${script} timed out after ${opts.timeoutMs} ms`));
    }, opts.timeoutMs ?? 300_000);
    const send = (m: unknown): void => {
      if (child.connected) child.send(m as object);
    };
    child.on('message', (msg: unknown) => {
      const m = msg as { result?: R; error?: string };
      if (m && typeof m === 'object' && 'result' in m) {
        settled = true;
        clearTimeout(timer);
        resolve(m.result as R);
        child.disconnect();
      } else if (m && typeof m === 'object' && 'error' in m) {
        settled = true;
        clearTimeout(timer);
        reject(new Error(`worker ${script}: ${m.error}`));
        child.kill();
      } else opts.onMessage?.(msg, send);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        reject(new Error(`worker ${script} exited with ${code} before reporting`));
      }
    });
    child.send(input as object);
  });
}

/** Worker side: receive the input, run `fn`, send `{ result }` (or `{ error }`). */
export function workerMain<I, R>(fn: (input: I, onMessage: (h: (m: unknown) => void) => void) => Promise<R>): void {
  const handlers: Array<(m: unknown) => void> = [];
  let started = false;
  process.on('message', (msg: unknown) => {
    if (!started) {
      started = true;
      fn(msg as I, (h) => handlers.push(h)).then(
        (result) => {
          process.send?.({ result }, () => process.exit(0));
        },
        (err: unknown) => {
          process.send?.({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }, () =>
            process.exit(1),
          );
        },
      );
      return;
    }
    for (const h of handlers) h(msg);
  });
}

/** Heap and RSS after a full GC (needs --expose-gc; without it, the numbers are as they are). */
export function settledMemory(): {
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
} {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
  const m = process.memoryUsage();
  return {
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    rss: m.rss,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` every `pollMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  pollMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** The machine's CPU time so far, busy and in total, in clock ticks summed over its cores (/proc/stat). */
async function cpuTicks(): Promise<{ busy: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal ...
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
}

/**
 * Waits until the whole machine is quiet: less than `maxBusy` of its CPU used over a `windowMs`
 * window, e.g. until a VM just started has finished its boot burst. Returns whether it got there
 * within `timeoutMs` (a machine never quiet is reported by the caller, not waited on forever).
 */
export async function machineQuiet(maxBusy = 0.2, windowMs = 250, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let before = await cpuTicks();
  for (;;) {
    await sleep(windowMs);
    const after = await cpuTicks();
    const total = after.total - before.total;
    if (total > 0 && (after.busy - before.busy) / total < maxBusy) return true;
    if (Date.now() > deadline) return false;
    before = after;
  }
}
