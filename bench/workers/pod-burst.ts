// The client side of the cluster-scale benchmark, in its own process: creates `pods` pods through
// the API (HTTPS, bearer token, `inFlight` keep-alive requests at once: as fast as the server takes
// them), follows them through one watch until every pod is bound and Running, and meanwhile probes
// the server as a user would: a GET of one pod every 100 ms and, every 10 s, a paged LIST of every
// pod in the namespace (limit 500).
//
// Watch delivery, two ways: arrival of a pod's ADDED event − start of its create request (the
// write included, and with 64 creates in flight on a busy server, its wait in line), and ADDED
// arrival − arrival of the create's response, how far the watch lags behind the writer learning of
// its write (the watch latency kube's SLO speaks of: from the commit, not from the request). Names
// are found by string search, not JSON.parse, so this process's parsing does not inflate the
// server's figures.
import { Agent, request } from 'node:https';
import { call, eachLine, nowMs, percentile, round, workerMain, type Endpoint, type HttpResult } from '../common.ts';

interface Input {
  endpoint: Endpoint;
  namespace: string;
  pods: number;
  inFlight: number;
  /** Give up (and report what was reached) after this long. */
  deadlineMs: number;
}

export interface BurstResult {
  pods: number;
  complete: boolean;
  accepted: number;
  bound: number;
  running: number;
  allAcceptedMs: number;
  allBoundMs: number;
  allRunningMs: number;
  retries: number;
  /** Watch events about the pods, every kind: writes per pod = this ÷ pods. */
  watchEvents: number;
  watchDeliveries: number;
  watchP50Ms: number;
  watchP99Ms: number;
  watchMaxMs: number;
  /** ADDED arrival − the create's response arrival (0 when the event came first). */
  watchAfterWriteP50Ms: number;
  watchAfterWriteP99Ms: number;
  watchAfterWriteMaxMs: number;
  getCount: number;
  getP50Ms: number;
  getP99Ms: number;
  listPages: number;
  listPageP50Ms: number;
  listPageP99Ms: number;
  listPasses: number;
  listPassP50Ms: number;
  listPassMaxMs: number;
}

function podBody(namespace: string, i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${i}`, namespace, labels: { app: 'burst', shard: `s${i % 16}` } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.9',
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Index of the pod a watch line is about (`p-<i>`), or -1. */
function podIndex(line: string): number {
  const at = line.indexOf('"name":"p-');
  if (at < 0) return -1;
  const end = line.indexOf('"', at + 10);
  return Number(line.slice(at + 10, end));
}

workerMain<Input, BurstResult>(async (input) => {
  const { endpoint: ep, namespace, pods } = input;
  const createAgent = new Agent({ keepAlive: true, maxSockets: input.inFlight });
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 2 });
  const base = `/api/v1/namespaces/${namespace}/pods`;

  const createStart = new Float64Array(pods);
  const createDone = new Float64Array(pods);
  const afterWrite: number[] = [];
  const isBound = new Uint8Array(pods);
  const isRunning = new Uint8Array(pods);
  const deliveries: number[] = [];
  let accepted = 0;
  let bound = 0;
  let running = 0;
  let lastAccepted = 0;
  let lastBound = 0;
  let lastRunning = 0;
  let retries = 0;
  let watchEvents = 0;

  const listed = await call(ep, 'GET', `${base}?limit=1`, undefined, probeAgent);
  const rv = /"resourceVersion":"(\d+)"/.exec(listed.body)?.[1];
  if (listed.status !== 200 || !rv) throw new Error(`list: HTTP ${listed.status}: ${listed.body.slice(0, 200)}`);

  let allRunning!: () => void;
  const everyPodRunning = new Promise<void>((r) => (allRunning = r));
  const watch = request({
    method: 'GET',
    hostname: new URL(ep.url).hostname,
    port: new URL(ep.url).port,
    path: `${base}?watch=1&resourceVersion=${rv}`,
    ca: ep.caPem,
    headers: { accept: 'application/json', authorization: `Bearer ${ep.token}` },
  });
  const watchOpen = new Promise<void>((resolve, reject) => {
    watch.on('error', reject);
    watch.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch: HTTP ${res.statusCode}`));
      eachLine(res, (line, now) => {
        const i = podIndex(line);
        if (i < 0 || i >= pods) return;
        watchEvents++;
        if (line.startsWith('{"type":"ADDED"') && createStart[i] > 0) {
          deliveries.push(now - createStart[i]);
          afterWrite.push(createDone[i] > 0 ? Math.max(0, now - createDone[i]) : 0);
        }
        if (!isBound[i] && line.includes('"nodeName"')) {
          isBound[i] = 1;
          bound++;
          lastBound = now;
        }
        if (!isRunning[i] && line.includes('"phase":"Running"')) {
          isRunning[i] = 1;
          running++;
          lastRunning = now;
          if (running === pods) allRunning();
        }
      });
      resolve();
    });
  });
  watch.end();
  await watchOpen;

  let done = false;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  /** A probe's pause, cut short when the run ends. */
  const pause = (ms: number): Promise<void> => Promise.race([sleep(ms), finished]);
  const t0 = nowMs();
  let next = 0;
  const creator = async (): Promise<void> => {
    while (next < pods && !done) {
      const i = next++;
      const body = podBody(namespace, i);
      for (;;) {
        createStart[i] = nowMs();
        const r = await call(ep, 'POST', base, body, createAgent).catch((e: unknown): HttpResult => ({
          status: 0,
          body: String(e),
        }));
        // 409: a retried create whose first attempt went through.
        if (r.status === 201 || r.status === 409) {
          createDone[i] = nowMs();
          break;
        }
        if (done) return;
        retries++;
        await sleep(50);
      }
      accepted++;
      lastAccepted = nowMs();
    }
  };

  const gets: number[] = [];
  const getProbe = async (): Promise<void> => {
    while (!done) {
      await pause(100);
      if (accepted === 0 || done) continue;
      const t = nowMs();
      const r = await call(ep, 'GET', `${base}/p-${Math.floor(Math.random() * accepted)}`, undefined, probeAgent);
      if (r.status === 200) gets.push(nowMs() - t);
    }
  };

  const pages: number[] = [];
  const passes: number[] = [];
  const listProbe = async (): Promise<void> => {
    while (!done) {
      const start = nowMs();
      let cont = '';
      do {
        const t = nowMs();
        const r = await call(ep, 'GET', `${base}?limit=500${cont ? `&continue=${cont}` : ''}`, undefined, probeAgent);
        if (r.status !== 200) break;
        pages.push(nowMs() - t);
        const token = /"continue":"([^"]*)"/.exec(r.body.slice(0, 2000))?.[1];
        cont = token ? encodeURIComponent(token) : '';
      } while (cont && !done);
      if (!done) passes.push(nowMs() - start);
      // A pass starts every 10 s at most: one client paging through everything, not a LIST storm.
      await pause(Math.max(0, start + 10_000 - nowMs()));
    }
  };

  const probes = [getProbe(), listProbe()];
  await Promise.all(Array.from({ length: input.inFlight }, creator));
  const deadline = sleep(Math.max(0, t0 + input.deadlineMs - nowMs())).then(() => 'deadline' as const);
  const outcome = await Promise.race([everyPodRunning.then(() => 'running' as const), deadline]);
  done = true;
  finish();
  await Promise.all(probes);
  watch.destroy();
  createAgent.destroy();
  probeAgent.destroy();

  const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
  const d = sorted(deliveries);
  const aw = sorted(afterWrite);
  const g = sorted(gets);
  const p = sorted(pages);
  const ps = sorted(passes);
  const since = (t: number): number => (t > 0 ? round(t - t0, 0) : NaN);
  return {
    pods,
    complete: outcome === 'running',
    accepted,
    bound,
    running,
    allAcceptedMs: since(accepted === pods ? lastAccepted : 0),
    allBoundMs: since(bound === pods ? lastBound : 0),
    allRunningMs: since(running === pods ? lastRunning : 0),
    retries,
    watchEvents,
    watchDeliveries: d.length,
    watchP50Ms: round(percentile(d, 50), 1),
    watchP99Ms: round(percentile(d, 99), 1),
    watchMaxMs: round(d[d.length - 1] ?? NaN, 1),
    watchAfterWriteP50Ms: round(percentile(aw, 50), 1),
    watchAfterWriteP99Ms: round(percentile(aw, 99), 1),
    watchAfterWriteMaxMs: round(aw[aw.length - 1] ?? NaN, 1),
    getCount: g.length,
    getP50Ms: round(percentile(g, 50), 1),
    getP99Ms: round(percentile(g, 99), 1),
    listPages: p.length,
    listPageP50Ms: round(percentile(p, 50), 1),
    listPageP99Ms: round(percentile(p, 99), 1),
    listPasses: ps.length,
    listPassP50Ms: round(percentile(ps, 50), 0),
    listPassMaxMs: round(ps[ps.length - 1] ?? NaN, 0),
  };
});
