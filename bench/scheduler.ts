// Scheduler + simulated kubelet benchmark: 5,000 pods on 100 simulated nodes, in process.
//   backlog: 5,000 pending pods exist, then the scheduler starts; pods bound per second and the
//            time until all are Running (kubelets included).
//   stream:  the scheduler runs while the 5,000 pods are created (64 creates in flight); time
//            from the first create until all are Running.
// Run alone: `node --import tsx bench/scheduler.ts`.
import { startControlPlane, type ControlPlane } from '../src/kube/index.ts';
import { internalContext } from '../src/kube/registry/context.ts';
import { Scheduler } from '../src/kube/controllers/scheduler/scheduler.ts';
import { nowMs, round } from './common.ts';

const PODS = Number(process.env.BENCH_PODS ?? 5000);
const NODES = 100;
const CONCURRENCY = 64;
const ctx = internalContext('bench');

function podManifest(i: number): Record<string, unknown> {
  return {
    metadata: { name: `p-${i}`, labels: { app: 'bench' } },
    spec: {
      containers: [
        { name: 'c', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '10m', memory: '16Mi' } } },
      ],
    },
  };
}

async function createPods(cp: ControlPlane, ns: string): Promise<void> {
  const { store, catalog } = cp.internals;
  const def = catalog.lookup('', 'v1', 'pods')!;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < PODS) {
      const i = next++;
      await store.create(def, ns, podManifest(i), ctx);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Resolves with the times (ms, from `nowMs()`) at which the last pod was bound and Running. */
function track(
  cp: ControlPlane,
  ns: string,
): { done: Promise<{ boundAt: number; runningAt: number }>; stop: () => void } {
  const bound = new Set<string>();
  const running = new Set<string>();
  let boundAt = 0;
  let resolve!: (v: { boundAt: number; runningAt: number }) => void;
  const done = new Promise<{ boundAt: number; runningAt: number }>((r) => (resolve = r));
  const prefix = `/core/pods/${ns}/`;
  const watcher = cp.internals.storage.watch(prefix, cp.internals.storage.currentRevision(), (c) => {
    if (c.type === 'DELETED') return;
    if (!bound.has(c.key) && c.json.includes('"nodeName"')) {
      bound.add(c.key);
      if (bound.size === PODS) boundAt = nowMs();
    }
    if (!running.has(c.key) && c.json.includes('"phase":"Running"')) {
      running.add(c.key);
      if (running.size === PODS) resolve({ boundAt, runningAt: nowMs() });
    }
  });
  return { done, stop: () => watcher.stop() };
}

async function createNamespace(cp: ControlPlane, ns: string): Promise<void> {
  const def = cp.internals.catalog.lookup('', 'v1', 'namespaces')!;
  await cp.internals.store.create(def, undefined, { metadata: { name: ns } }, ctx);
}

async function backlog(): Promise<Record<string, number>> {
  const cp = await startControlPlane({ nodes: NODES, scheduler: false });
  try {
    await createNamespace(cp, 'bench');
    await createPods(cp, 'bench');
    const t = track(cp, 'bench');
    const { storage, store, catalog, extensions } = cp.internals;
    const t0 = nowMs();
    const cpu0 = process.cpuUsage();
    const scheduler = new Scheduler(storage, store, catalog, extensions);
    scheduler.start();
    const { boundAt, runningAt } = await t.done;
    const cpu = process.cpuUsage(cpu0);
    scheduler.stop();
    t.stop();
    return {
      // Load-independent: CPU time of this process to schedule, bind and start one pod.
      backlog_cpu_ms_per_pod: round((cpu.user + cpu.system) / 1000 / PODS, 3),
      backlog_pods_bound_per_s: round(PODS / ((boundAt - t0) / 1000), 0),
      backlog_time_to_all_bound_ms: round(boundAt - t0, 0),
      backlog_time_to_all_running_ms: round(runningAt - t0, 0),
    };
  } finally {
    await cp.stop();
  }
}

async function stream(): Promise<Record<string, number>> {
  const cp = await startControlPlane({ nodes: NODES });
  try {
    await createNamespace(cp, 'bench');
    const t = track(cp, 'bench');
    const t0 = nowMs();
    await createPods(cp, 'bench');
    const createdAt = nowMs();
    const { boundAt, runningAt } = await t.done;
    t.stop();
    return {
      stream_pods_created_per_s: round(PODS / ((createdAt - t0) / 1000), 0),
      stream_pods_bound_per_s: round(PODS / ((boundAt - t0) / 1000), 0),
      stream_time_to_all_running_ms: round(runningAt - t0, 0),
    };
  } finally {
    await cp.stop();
  }
}

/** Figures for bench/run.ts; about 10-20 s on a laptop. */
export async function runSchedulerBench(): Promise<Record<string, number>> {
  return { pods: PODS, nodes: NODES, ...(await backlog()), ...(await stream()) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runSchedulerBench(), null, 2));
}
