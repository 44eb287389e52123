// Process pods on the embedded cluster (`peerpods cluster start`'s process runtime):
// 1. `cluster start` + `deploy` until every operator Deployment is Available (its pods Ready
//    through their real probes) — target ≤ 10 s from deploy.
// 2. The same operator (`peerpods run peerpod-controller`) started as a process pod (readiness
//    probe every second) against started by hand as a plain process, alternately, PROCESS_PODS_N
//    times each: time to the first log line, time to Ready (/readyz answering 200 for the plain
//    process; the Ready condition for the pod), and peak RSS (VmHWM) of the process. The plain
//    process is the physical baseline: the ratios are what the runtime adds.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { call, mustCall, nowMs, round, type Endpoint } from './common.ts';

const N = Number(process.env.PROCESS_PODS_N ?? 3);
const BIN = new URL('../bin/peerpods.js', import.meta.url).pathname;
const NS = 'peerpods-system';
const IMAGE = 'ghcr.io/peerpods/peerpods:latest';
export const DEPLOY_TARGET_SECONDS = 10;

export interface ProcessPodResults {
  deploySeconds: number;
  deployMet: boolean;
  runs: number;
  pod: Figures;
  plain: Figures;
  firstLogRatio: number;
  readyRatio: number;
  rssRatio: number;
}

interface Figures {
  firstLogMs: number;
  readyMs: number;
  peakRssBytes: number;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function peakRss(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The process whose environment names this pod's directory (the container view lives there). */
function podPid(uid: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(`/pods/${uid}/`)) return Number(entry);
    } catch {
      // gone, or not readable
    }
  }
  return undefined;
}

function endpointFrom(kubeconfigPath: string): Endpoint {
  const kc = parse(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
    users: Array<{ user: { token: string } }>;
  };
  return {
    url: kc.clusters[0].cluster.server,
    caPem: Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8'),
    token: kc.users[0].user.token,
  };
}

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function deploymentsAvailable(ep: Endpoint): Promise<true | undefined> {
  const r = await call(ep, 'GET', `/apis/apps/v1/namespaces/${NS}/deployments`);
  if (r.status !== 200) return undefined;
  const items = (JSON.parse(r.body) as { items: Array<{ status?: { availableReplicas?: number } }> }).items;
  return items.length > 0 && items.every((d) => (d.status?.availableReplicas ?? 0) >= 1) ? true : undefined;
}

/** One operator started by hand: first log line, /readyz 200, its peak RSS once ready. */
async function plainRun(kubeconfig: string): Promise<Figures> {
  const port = await freePort();
  const t0 = nowMs();
  const child = spawn(
    process.execPath,
    [BIN, 'run', 'peerpod-controller', `--health-probe-bind-address=127.0.0.1:${port}`, '--kubeconfig', kubeconfig],
    { env: { ...process.env, PEERPODS_NAMESPACE: NS }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let firstLog = NaN;
  child.stdout.once('data', () => (firstLog = nowMs() - t0));
  try {
    await until(
      'plain process ready',
      async () => {
        const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
        return ok ? true : undefined;
      },
      60_000,
    );
    const readyMs = nowMs() - t0;
    await new Promise((r) => setTimeout(r, 2000));
    return { firstLogMs: firstLog, readyMs, peakRssBytes: peakRss(child.pid!) };
  } finally {
    child.kill('SIGKILL');
  }
}

/** The same operator as a process pod: first line through pods/log, the Ready condition, VmHWM. */
async function podRun(ep: Endpoint, i: number): Promise<Figures> {
  const name = `bench-operator-${i}`;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      // The account `deploy` made for the controller: the namespace's default one may do nothing.
      serviceAccountName: 'peerpod-controller',
      containers: [
        {
          name: 'manager',
          image: IMAGE,
          args: ['run', 'peerpod-controller', '--health-probe-bind-address=:8081'],
          env: [{ name: 'PEERPODS_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
          readinessProbe: { httpGet: { path: '/readyz', port: 8081 }, periodSeconds: 1 },
        },
      ],
    },
  };
  const t0 = nowMs();
  const created = JSON.parse(await mustCall(ep, 'POST', `/api/v1/namespaces/${NS}/pods`, pod)) as {
    metadata: { uid: string };
  };
  const base = `/api/v1/namespaces/${NS}/pods/${name}`;
  let firstLogMs = NaN;
  let readyMs = NaN;
  await until(
    'process pod log and Ready',
    async () => {
      if (Number.isNaN(firstLogMs)) {
        const r = await call(ep, 'GET', `${base}/log`);
        if (r.status === 200 && r.body.length > 0) firstLogMs = nowMs() - t0;
      }
      if (Number.isNaN(readyMs)) {
        const p = JSON.parse((await call(ep, 'GET', base)).body) as {
          status?: { conditions?: Array<{ type: string; status: string }> };
        };
        if (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) readyMs = nowMs() - t0;
      }
      return Number.isNaN(firstLogMs) || Number.isNaN(readyMs) ? undefined : true;
    },
    60_000,
  );
  await new Promise((r) => setTimeout(r, 2000));
  const pid = podPid(created.metadata.uid);
  const peakRssBytes = pid ? peakRss(pid) : NaN;
  await mustCall(ep, 'DELETE', `${base}?gracePeriodSeconds=0`);
  await until('pod gone', async () => ((await call(ep, 'GET', base)).status === 404 ? true : undefined), 60_000);
  return { firstLogMs, readyMs, peakRssBytes };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function medians(runs: Figures[]): Figures {
  return {
    firstLogMs: median(runs.map((r) => r.firstLogMs)),
    readyMs: median(runs.map((r) => r.readyMs)),
    peakRssBytes: median(runs.map((r) => r.peakRssBytes)),
  };
}

export async function runProcessPodsBench(log: (s: string) => void): Promise<ProcessPodResults> {
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-bench-pods-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const cluster = runCli([
    'cluster',
    'start',
    '--port',
    '0',
    '--nodes',
    '2',
    '--kubeconfig',
    kubeconfig,
    '--state-dir',
    join(dir, 'cluster'),
  ]);
  try {
    await until(
      'cluster start',
      async () => (cluster.output().includes('kubeconfig written') ? true : undefined),
      60_000,
    );
    const ep = endpointFrom(kubeconfig);
    const t0 = nowMs();
    const deploy = runCli(['deploy', '--kubeconfig', kubeconfig]);
    if ((await deploy.exited) !== 0) throw new Error(`bench: deploy failed:\n${deploy.output()}`);
    await until('operator Deployments Available', () => deploymentsAvailable(ep), 120_000);
    const deploySeconds = (nowMs() - t0) / 1000;
    log(`process-pods: deploy → every operator pod Ready in ${round(deploySeconds, 2)} s`);

    const pod: Figures[] = [];
    const plain: Figures[] = [];
    for (let i = 0; i < N; i++) {
      plain.push(await plainRun(kubeconfig));
      pod.push(await podRun(ep, i));
    }
    const p = medians(pod);
    const b = medians(plain);
    return {
      deploySeconds: round(deploySeconds, 2),
      deployMet: deploySeconds <= DEPLOY_TARGET_SECONDS,
      runs: N,
      pod: p,
      plain: b,
      firstLogRatio: round(p.firstLogMs / b.firstLogMs, 2),
      readyRatio: round(p.readyMs / b.readyMs, 2),
      rssRatio: round(p.peakRssBytes / b.peakRssBytes, 2),
    };
  } finally {
    cluster.child.kill('SIGTERM');
    await Promise.race([cluster.exited, new Promise((r) => setTimeout(r, 15_000))]);
    cluster.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
