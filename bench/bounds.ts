// Memory bounds of the API server under a hostile client (issue #15): one client patching a 1 MiB
// ConfigMap 10,000 times (watch history must stay bounded in bytes), and 2,000 watchers of a
// namespace holding a 1 MiB ConfigMap (an event must be serialised once, not per watcher). The
// server runs alone in a child process; its RSS is read from /proc/<pid>/status while the
// clients (in this process) work.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { BENCH_DIR, MiB, mustCall, nowMs, round, type Endpoint } from './common.ts';

export interface BoundsResults {
  patch: {
    objectBytes: number;
    patches: number;
    completed: number;
    seconds: number;
    baselineRssBytes: number;
    peakRssBytes: number;
    finalRssBytes: number;
    serverDied: boolean;
  };
  watchers: {
    objectBytes: number;
    watchers: number;
    connected: number;
    received: number;
    baselineRssBytes: number;
    peakRssBytes: number;
    settledRssBytes: number;
    growthPerWatcherBytes: number;
  };
}

const PATCHES = Number(process.env.BOUNDS_PATCHES ?? 10_000);
const WATCHERS = Number(process.env.BOUNDS_WATCHERS ?? 2_000);
/** Just under kube's 1 MiB limit on a ConfigMap's data. */
const OBJECT_BYTES = 1_000_000;

interface Server {
  child: ChildProcess;
  ep: Endpoint;
  rss(): number;
  peak(): number;
  stop(): Promise<void>;
}

function procStatus(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function startServer(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = fork(join(BENCH_DIR, 'workers', 'bounds-server.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, procStatus(child.pid!, 'VmRSS'))), 100);
    child.once('exit', () => clearInterval(sampler));
    child.once('error', reject);
    child.once('message', (m: unknown) => {
      const ready = (m as { ready: Endpoint }).ready;
      resolve({
        child,
        ep: ready,
        rss: () => procStatus(child.pid!, 'VmRSS'),
        peak: () => Math.max(peak, procStatus(child.pid!, 'VmRSS')),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.send('stop');
            setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
          }),
      });
    });
  });
}

function bigConfigMap(name: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: { big: 'x'.repeat(OBJECT_BYTES) },
  };
}

function patch(ep: Endpoint, agent: Agent, path: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const u = new URL(path, ep.url);
    const req = request(
      {
        method: 'PATCH',
        hostname: u.hostname,
        port: u.port,
        path: u.pathname,
        ca: ep.caPem,
        agent,
        headers: {
          authorization: `Bearer ${ep.token}`,
          'content-type': 'application/merge-patch+json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

async function patchRun(log: (s: string) => void): Promise<BoundsResults['patch']> {
  const s = await startServer();
  await mustCall(s.ep, 'POST', '/api/v1/namespaces', { metadata: { name: 'bounds' } });
  await mustCall(s.ep, 'POST', '/api/v1/namespaces/bounds/configmaps', bigConfigMap('big', 'bounds'));
  const baselineRssBytes = s.rss();
  const agent = new Agent({ keepAlive: true, maxSockets: 4, ca: s.ep.caPem });
  const path = '/api/v1/namespaces/bounds/configmaps/big';
  let next = 0;
  let completed = 0;
  let died = false;
  const t0 = nowMs();
  const worker = async (): Promise<void> => {
    while (!died && next < PATCHES) {
      const i = next++;
      const code = await patch(s.ep, agent, path, JSON.stringify({ data: { n: String(i) } }));
      if (code === 200) completed++;
      else if (code === 0) died = s.child.exitCode !== null || s.child.signalCode !== null;
      if (completed % 1000 === 0 && code === 200) log(`  ${completed} patches, server RSS ${round(s.rss() / MiB)} MiB`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const seconds = (nowMs() - t0) / 1000;
  agent.destroy();
  const result = {
    objectBytes: OBJECT_BYTES,
    patches: PATCHES,
    completed,
    seconds,
    baselineRssBytes,
    peakRssBytes: s.peak(),
    finalRssBytes: s.rss(),
    serverDied: died,
  };
  await s.stop();
  return result;
}

async function watchRun(log: (s: string) => void): Promise<BoundsResults['watchers']> {
  const s = await startServer();
  await mustCall(s.ep, 'POST', '/api/v1/namespaces', { metadata: { name: 'bounds' } });
  await mustCall(s.ep, 'POST', '/api/v1/namespaces/bounds/configmaps', bigConfigMap('big', 'bounds'));
  const baselineRssBytes = s.rss();
  const agent = new Agent({ keepAlive: false, maxSockets: WATCHERS + 1, ca: s.ep.caPem });
  const u = new URL(s.ep.url);
  let connected = 0;
  let received = 0;
  const responses: Array<{ destroy(): void }> = [];
  // Each watcher counts the bytes of its events (ADDED, then MODIFIED after the patch below).
  const counts = new Float64Array(WATCHERS);
  const open = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const req = request(
        {
          agent,
          hostname: u.hostname,
          port: u.port,
          path: '/api/v1/namespaces/bounds/configmaps?watch=1&resourceVersion=0&timeoutSeconds=3600',
          headers: { authorization: `Bearer ${s.ep.token}` },
        },
        (res) => {
          connected++;
          responses.push(res);
          res.on('data', (c: Buffer) => {
            counts[i] += c.length;
          });
          res.on('error', () => {});
          resolve();
        },
      );
      req.on('error', () => resolve());
      req.end();
    });
  for (let i = 0; i < WATCHERS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, WATCHERS - i) }, (_, k) => open(i + k)));
  }
  log(`  ${connected}/${WATCHERS} watchers connected, server RSS ${round(s.rss() / MiB)} MiB`);
  const waitFor = async (bytes: number, ms: number): Promise<number> => {
    const until = nowMs() + ms;
    let n = 0;
    while (nowMs() < until) {
      n = counts.filter((c) => c >= bytes).length;
      if (n >= connected) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    return n;
  };
  await waitFor(OBJECT_BYTES, 120_000);
  await patch(s.ep, new Agent({ ca: s.ep.caPem }), '/api/v1/namespaces/bounds/configmaps/big', '{"data":{"n":"1"}}');
  received = await waitFor(2 * OBJECT_BYTES, 120_000);
  log(`  ${received}/${connected} watchers got ADDED and MODIFIED, server RSS ${round(s.rss() / MiB)} MiB`);
  await new Promise((r) => setTimeout(r, 15_000));
  const settledRssBytes = s.rss();
  const peakRssBytes = s.peak();
  for (const r of responses) r.destroy();
  agent.destroy();
  await s.stop();
  return {
    objectBytes: OBJECT_BYTES,
    watchers: WATCHERS,
    connected,
    received,
    baselineRssBytes,
    peakRssBytes,
    settledRssBytes,
    growthPerWatcherBytes: (settledRssBytes - baselineRssBytes) / Math.max(1, connected),
  };
}

/** BOUNDS_PATCHES=0 or BOUNDS_WATCHERS=0 skips that half. */
export async function runBounds(log: (s: string) => void): Promise<Partial<BoundsResults>> {
  const results: Partial<BoundsResults> = {};
  if (PATCHES > 0) {
    log(`bounds: ${PATCHES} merge patches of a 1 MiB ConfigMap (4 in flight)`);
    results.patch = await patchRun(log);
  }
  if (WATCHERS > 0) {
    log(`bounds: ${WATCHERS} watchers from resourceVersion 0 of a namespace with a 1 MiB ConfigMap`);
    results.watchers = await watchRun(log);
  }
  return results;
}
