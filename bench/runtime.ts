// Runtime benchmarks: 10,000 Widgets each reconciled once (status patch) by our runtime and by two
// peers, each in its own child process against its own fresh control plane (in this process);
// plus our informer's memory per cached object and the sync time of a 50,000-object cache.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startControlPlane } from '../src/kube/index.ts';
import type { ControlPlane } from '../src/kube/index.ts';
import { nowMs, round, runWorker } from './common.ts';
import { installWidgetCrd, seedWidgets, GROUP, PLURAL } from './crd.ts';
import { seedConfigMaps, storedJsonBytes } from './seed.ts';
import type { ConvergeInput, ConvergeResult, Peer } from './workers/converge.ts';
import type { InformerMemoryInput, InformerMemoryResult } from './workers/informer-memory.ts';

export const WIDGETS = 10_000;
export const CACHE_OBJECTS = 50_000;
/** Reconcile workers of our controller and in-flight patches of the client-node loop. */
export const CONCURRENCY = 16;

export interface ConvergeRow extends ConvergeResult {
  description: string;
  concurrency: string;
  version: string;
  /** From the peer's start call (after its modules loaded) to the last status written. */
  convergeSeconds: number;
  /** From spawning the child process to the last status written. */
  totalSeconds: number;
  converged: number;
  /** 1-minute load average when the peer started (the machine's two cores may be shared). */
  loadAverage1m: number;
}

export interface RuntimeResults {
  widgets: number;
  peers: ConvergeRow[];
  speedupVsBestPeer: number;
  speedupTarget: number;
  speedupMet: boolean;
  cache: InformerMemoryResult & { target: number; met: boolean; syncTargetSeconds: number; syncMet: boolean };
}

const PEERS: Array<{ peer: Peer; description: string; concurrency: string }> = [
  {
    peer: 'peerpods',
    description: 'peerpods runtime (ControllerBuilder + Manager)',
    concurrency: `maxConcurrentReconciles=${CONCURRENCY}`,
  },
  {
    peer: 'dot-i',
    description: '@dot-i/k8s-operator watchResource + patchResourceStatus',
    concurrency: '1 (its event queue is serial, not configurable)',
  },
  {
    peer: 'client-node',
    description: '@kubernetes/client-node makeInformer + hand-written queue',
    concurrency: `${CONCURRENCY} in-flight patches`,
  },
];

async function versionOf(pkg: string, from?: string): Promise<string> {
  const { createRequire } = await import('node:module');
  const req = createRequire(from ?? import.meta.url);
  try {
    return (req(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

async function peerVersion(peer: Peer): Promise<string> {
  if (peer === 'peerpods') return 'workspace';
  if (peer === 'client-node') return `@kubernetes/client-node ${await versionOf('@kubernetes/client-node')}`;
  const { createRequire } = await import('node:module');
  const dotI = createRequire(import.meta.url).resolve('@dot-i/k8s-operator');
  return `@dot-i/k8s-operator ${await versionOf('@dot-i/k8s-operator')} (nested @kubernetes/client-node ${await versionOf('@kubernetes/client-node', dotI)})`;
}

async function convergeOne(spec: (typeof PEERS)[number], log: (s: string) => void): Promise<ConvergeRow> {
  const cp: ControlPlane = await startControlPlane();
  try {
    const namespace = 'bench-rt';
    await installWidgetCrd(cp);
    await seedWidgets(cp, namespace, WIDGETS);
    // Count first status writes from the storage's change feed (no HTTP, no JSON parsing).
    const done = new Set<string>();
    let finish: () => void = () => {};
    const finished = new Promise<void>((r) => (finish = r));
    let tDone = 0;
    const watcher = cp.internals.storage.watch(
      `/${GROUP}/${PLURAL}/${namespace}/`,
      cp.internals.storage.currentRevision(),
      (c) => {
        if (c.type !== 'MODIFIED' || done.has(c.key) || !c.json.includes('"reconciled":true')) return;
        done.add(c.key);
        if (done.size === WIDGETS) {
          tDone = nowMs();
          finish();
        }
      },
    );
    let tStarted = 0;
    const loadAverage1m = round(loadavg()[0], 2);
    const tSpawn = nowMs();
    const input: ConvergeInput = { peer: spec.peer, kubeconfig: cp.kubeconfig, namespace, concurrency: CONCURRENCY };
    const timeoutMs = 240_000;
    const result = await runWorker<ConvergeResult>('converge.ts', input, {
      timeoutMs: timeoutMs + 30_000,
      onMessage: (m, send) => {
        const started = (m as { started?: number }).started;
        if (started === undefined) return;
        tStarted = started;
        const timer = setTimeout(finish, timeoutMs);
        void finished.then(() => {
          clearTimeout(timer);
          send('stop');
        });
      },
    });
    watcher.stop();
    const converged = done.size;
    const end = converged === WIDGETS ? tDone : NaN;
    const row: ConvergeRow = {
      ...result,
      description: spec.description,
      concurrency: spec.concurrency,
      version: await peerVersion(spec.peer),
      convergeSeconds: (end - tStarted) / 1000,
      totalSeconds: (end - tSpawn) / 1000,
      converged,
      loadAverage1m,
    };
    log(
      `  ${spec.peer}: ${converged}/${WIDGETS} in ${round(row.convergeSeconds, 2)} s, peak RSS ${round(row.peakRssBytes / 2 ** 20)} MiB`,
    );
    return row;
  } finally {
    await cp.stop();
  }
}

export async function runRuntime(log: (s: string) => void): Promise<RuntimeResults> {
  const peers: ConvergeRow[] = [];
  for (const spec of PEERS) {
    log(`runtime: converge ${WIDGETS} Widgets: ${spec.peer}`);
    peers.push(await convergeOne(spec, log));
  }
  const ours = peers.find((p) => p.peer === 'peerpods')!;
  const others = peers.filter((p) => p.peer !== 'peerpods' && Number.isFinite(p.convergeSeconds));
  const best = Math.min(...others.map((p) => p.convergeSeconds));
  const speedupVsBestPeer = best / ours.convergeSeconds;

  const cache = await runCache(log);
  return {
    widgets: WIDGETS,
    peers,
    speedupVsBestPeer,
    speedupTarget: 3,
    speedupMet: speedupVsBestPeer >= 3,
    cache,
  };
}

export async function runCache(log: (s: string) => void): Promise<RuntimeResults['cache']> {
  log(`runtime: informer cache of ${CACHE_OBJECTS} ConfigMaps (child process, --expose-gc)`);
  const cp = await startControlPlane();
  let cache: InformerMemoryResult;
  try {
    await seedConfigMaps(cp, 'bench-cache', CACHE_OBJECTS);
    const served = storedJsonBytes(cp, '/core/configmaps/bench-cache/');
    const input: InformerMemoryInput = {
      kubeconfig: cp.kubeconfig,
      namespace: 'bench-cache',
      count: CACHE_OBJECTS,
      servedJsonBytes: served.bytes,
    };
    cache = await runWorker<InformerMemoryResult>('informer-memory.ts', input, {
      nodeFlags: ['--expose-gc'],
      timeoutMs: 300_000,
    });
  } finally {
    await cp.stop();
  }
  log(
    `  sync ${round(cache.syncSeconds, 2)} s, ${round(cache.heapBytesPerObject)} heap B/object for ${round(cache.jsonBytesPerObject)} B of JSON`,
  );
  return {
    ...cache,
    target: 2,
    met: cache.ratioToCachedJson <= 2,
    syncTargetSeconds: 5,
    syncMet: cache.syncSeconds < 5,
  };
}

/** Keeps a kubeconfig of the last control plane around for debugging (not used by the runs). */
export function writeKubeconfig(path: string, cp: ControlPlane): void {
  writeFileSync(path, cp.kubeconfig, { mode: 0o600 });
}
