// Cluster scale (#18 items 1 and 2): N simulated nodes (Leases renewed every 10 s, status reported
// every 5 min: the kubelet's defaults) and P pods created through the API as fast as the server
// takes them, at three sizes (1k pods on 10 nodes, 10k on 100, 100k on 1,000). Each size gets a
// fresh control plane in its own process (workers/cluster-server.ts, run from dist/ as `npm start`
// runs it, built first; scheduler, kubelets and controllers included, so its RSS, heap and CPU are
// the server's). The client (workers/pod-burst.ts) creates with 64 requests in flight, follows one
// watch until every pod is Running, and probes GET and paged LIST meanwhile.
//
// Curves: time per pod (until all Running ÷ pods) and server memory per pod (RSS and heap growth
// from the idle cluster ÷ pods) at each size must stay within 1.5× from the smallest to the
// largest; they are plotted in bench/results/cluster-scale.png.
//
// CLUSTER_SCALE_SIZES="pods:nodes,..." sets the sizes; CLUSTER_SCALE_CPU_PROF=<dir> writes a CPU
// profile of the server at each size.
import { execFileSync, fork } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_DIR, MiB, mustCall, round, runWorker, type Endpoint } from './common.ts';
import { writeLinePlots } from './plot.ts';
import type { BurstResult } from './workers/pod-burst.ts';

export const SCALE_TARGETS = {
  /** Every pod of the largest size Running within this. */
  allRunningSeconds: 120,
  rssBytes: 2 * 1024 * MiB,
  watchP99Ms: 100,
  /** Largest ÷ smallest of time and memory per pod. */
  flatness: 1.5,
};
const SIZES = (process.env.CLUSTER_SCALE_SIZES ?? '1000:10,10000:100,100000:1000').split(',').map((s) => {
  const [pods, nodes] = s.split(':').map(Number);
  return { pods: pods!, nodes: nodes! };
});
const NAMESPACE = 'burst';
const IN_FLIGHT = 64;

interface ServerMemory {
  heapUsed: number;
  rss: number;
  maxRss: number;
  cpuMs: number;
  historyBytes: number;
  historyChanges: number;
}

export interface ScaleRun {
  pods: number;
  nodes: number;
  serverStartSeconds: number;
  burst: BurstResult;
  idle: ServerMemory;
  end: ServerMemory;
  acceptedPerS: number;
  boundPerS: number;
  runningPerS: number;
  msPerPod: number;
  serverCpuMsPerPod: number;
  rssBytesPerPod: number;
  heapBytesPerPod: number;
  /** RSS growth without the watch history's growth (bounded: whole in small runs, capped in large). */
  rssBeyondHistoryBytesPerPod: number;
}

export interface ClusterScaleResults {
  runs: ScaleRun[];
  largest: ScaleRun;
  allRunningMet: boolean;
  rssMet: boolean;
  watchMet: boolean;
  timeFlatness: number;
  memoryFlatness: number;
  heapFlatness: number;
  beyondHistoryFlatness: number;
  plot: string;
}

/** A control plane in a child process, driven by messages. */
class ServerProcess {
  private readonly child;
  private readonly waiting = new Map<string, (v: unknown) => void>();

  constructor(flags: string[]) {
    this.child = fork(join(BENCH_DIR, 'workers', 'cluster-server.ts'), [], {
      execArgv: ['--import', 'tsx', '--expose-gc', '--max-old-space-size=6144', ...flags],
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: unknown) => {
      const [key, value] = Object.entries(m as Record<string, unknown>)[0] ?? [];
      if (key) this.waiting.get(key)?.(value);
    });
  }

  private next<T>(key: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`cluster server: no ${key} in ${timeoutMs} ms`)), timeoutMs);
      const onExit = (code: number | null): void => reject(new Error(`cluster server exited with ${code}`));
      this.child.once('exit', onExit);
      this.waiting.set(key, (v) => {
        clearTimeout(timer);
        this.child.off('exit', onExit);
        this.waiting.delete(key);
        resolve(v as T);
      });
    });
  }

  async start(nodes: number): Promise<Endpoint & { startMs: number }> {
    const ready = this.next<Endpoint & { startMs: number }>('ready', 300_000);
    this.child.send({ nodes });
    return ready;
  }

  memory(): Promise<ServerMemory> {
    const m = this.next<ServerMemory>('memory', 120_000);
    this.child.send('memory');
    return m;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      const kill = setTimeout(() => this.child.kill('SIGKILL'), 60_000);
      this.child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      this.child.send('stop');
    });
  }
}

async function runSize(log: (s: string) => void, pods: number, nodes: number): Promise<ScaleRun> {
  const prof = process.env.CLUSTER_SCALE_CPU_PROF;
  const server = new ServerProcess(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []);
  try {
    const ep = await server.start(nodes);
    await mustCall(ep, 'POST', '/api/v1/namespaces', { metadata: { name: NAMESPACE } });
    log(`cluster-scale: ${nodes} nodes Ready in ${round(ep.startMs / 1000, 1)} s; creating ${pods} pods`);
    const idle = await server.memory();
    const deadlineMs = Math.max(60_000, pods * 10);
    const burst = await runWorker<BurstResult>(
      'pod-burst.ts',
      {
        endpoint: { url: ep.url, caPem: ep.caPem, token: ep.token },
        namespace: NAMESPACE,
        pods,
        inFlight: IN_FLIGHT,
        deadlineMs,
      },
      { timeoutMs: deadlineMs + 120_000 },
    );
    const end = await server.memory();
    const perS = (n: number, ms: number): number => round(n / (ms / 1000), 0);
    const run: ScaleRun = {
      pods,
      nodes,
      serverStartSeconds: round(ep.startMs / 1000, 1),
      burst,
      idle,
      end,
      acceptedPerS: perS(pods, burst.allAcceptedMs),
      boundPerS: perS(pods, burst.allBoundMs),
      runningPerS: perS(pods, burst.allRunningMs),
      msPerPod: round(burst.allRunningMs / pods, 3),
      serverCpuMsPerPod: round((end.cpuMs - idle.cpuMs) / pods, 3),
      rssBytesPerPod: round((end.rss - idle.rss) / pods, 0),
      heapBytesPerPod: round((end.heapUsed - idle.heapUsed) / pods, 0),
      rssBeyondHistoryBytesPerPod: round((end.rss - idle.rss - (end.historyBytes - idle.historyBytes)) / pods, 0),
    };
    log(
      `cluster-scale: ${pods} pods: ${burst.complete ? `all Running in ${round(burst.allRunningMs / 1000, 1)} s` : `${burst.running} Running at the deadline`}, ` +
        `server RSS ${round(end.rss / MiB)} MiB, ${run.serverCpuMsPerPod} ms CPU per pod`,
    );
    return run;
  } finally {
    await server.stop();
  }
}

const flatness = (xs: number[]): number => {
  const ok = xs.filter((x) => Number.isFinite(x) && x > 0);
  return ok.length < 2 ? NaN : round(Math.max(...ok) / Math.min(...ok), 2);
};

/** The curves as a PNG: time and server memory per pod at each size. */
export function plotClusterScale(runs: ScaleRun[], path: string): void {
  writeLinePlots(path, [
    {
      title: 'Time per pod (created → all Running)',
      xName: 'pods (nodes = pods / 100)',
      yName: 'ms per pod',
      logX: true,
      series: [
        { name: 'wall clock ÷ pods', points: runs.map((r) => [r.pods, r.msPerPod]) },
        { name: 'server CPU ÷ pods', points: runs.map((r) => [r.pods, r.serverCpuMsPerPod]) },
      ],
    },
    {
      title: 'Server memory per pod',
      xName: 'pods (nodes = pods / 100)',
      yName: 'KiB per pod',
      logX: true,
      series: [
        { name: 'RSS growth ÷ pods', points: runs.map((r) => [r.pods, round(r.rssBytesPerPod / 1024, 1)]) },
        { name: 'heap growth ÷ pods', points: runs.map((r) => [r.pods, round(r.heapBytesPerPod / 1024, 1)]) },
        {
          name: 'RSS growth beyond watch history ÷ pods',
          points: runs.map((r) => [r.pods, round(r.rssBeyondHistoryBytesPerPod / 1024, 1)]),
        },
      ],
    },
  ]);
}

export async function runClusterScaleBench(log: (s: string) => void): Promise<ClusterScaleResults> {
  // The server runs from dist/, as `npm start` does: build it if the sources changed.
  execFileSync(process.execPath, [join(BENCH_DIR, '..', 'scripts', 'build.mjs')], { stdio: 'inherit' });
  const runs: ScaleRun[] = [];
  for (const s of SIZES) runs.push(await runSize(log, s.pods, s.nodes));
  const largest = runs.reduce((a, b) => (b.pods > a.pods ? b : a));
  const plot = join(BENCH_DIR, 'results', 'cluster-scale.png');
  plotClusterScale(runs, plot);
  return {
    runs,
    largest,
    allRunningMet: largest.burst.complete && largest.burst.allRunningMs <= SCALE_TARGETS.allRunningSeconds * 1000,
    rssMet: largest.end.rss <= SCALE_TARGETS.rssBytes && largest.end.maxRss <= SCALE_TARGETS.rssBytes,
    watchMet: largest.burst.watchAfterWriteP99Ms < SCALE_TARGETS.watchP99Ms,
    timeFlatness: flatness(runs.map((r) => r.msPerPod)),
    memoryFlatness: flatness(runs.map((r) => r.rssBytesPerPod)),
    heapFlatness: flatness(runs.map((r) => r.heapBytesPerPod)),
    beyondHistoryFlatness: flatness(runs.map((r) => r.rssBeyondHistoryBytesPerPod)),
    plot: 'bench/results/cluster-scale.png',
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runClusterScaleBench(console.log), null, 2));
}
