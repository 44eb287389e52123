// Operators at fleet size (#18 item 4), each against a fresh control plane in this process (seeded
// through the store: the real registry path, minus HTTP), each run in a child process
// (workers/operator-cache.ts, --expose-gc) twice: a first start, which reconciles everything and
// writes what it makes, then a restart against what the first left.
// - the PeerPod controller with FLEET_PEERPODS PeerPods (default 10,000), each owned by its Pod;
// - the kvm-operator with FLEET_KVM_CLUSTERS KVMConfigs (default 500) of one master and
//   FLEET_KVM_WORKERS workers (default 9): its caches then hold the clusters, their node
//   Deployments and node Pods (~10,500 objects), the pods scheduled onto simulated nodes with room
//   for 100 each.
// Per run: time until every cache is synced, time until the work queues are idle, and heap held once
// idle per cached object against that object's JSON. Targets (on the restart): sync < 5 s; heap ≤ 2×
// the cached JSON.
import { startControlPlane } from '../src/kube/index.ts';
import { DEFAULT_NODE_CONFIG } from '../src/kube/controllers/nodes/node-object.ts';
import { internalContext } from '../src/kube/registry/context.ts';
import { KubeClient, installCrds, silentLogger } from '../src/runtime/index.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { allCrds } from '../src/peerpod/api/index.ts';
import { newPeerPod } from '../src/peerpod/adaptor/peerpod-record.ts';
import { Labels, Releases, kvmCrds } from '../src/kvm/api/index.ts';
import { kvmSamples } from '../src/kvm/samples.ts';
import { KVM_DEFAULTS } from '../src/kvm/options.ts';
import { round, runWorker } from './common.ts';
import { ensureNamespace, resourceDef } from './seed.ts';
import type { OperatorCacheInput, OperatorCacheResult } from './workers/operator-cache.ts';

const COUNT = Number(process.env.FLEET_PEERPODS ?? 10_000);
const KVM_CLUSTERS = Number(process.env.FLEET_KVM_CLUSTERS ?? 500);
const KVM_WORKERS = Number(process.env.FLEET_KVM_WORKERS ?? 9);
const NS = 'fleet';
const SETTINGS_NS = 'peerpods-system';
export const FLEET_SYNC_TARGET_SECONDS = 5;
export const FLEET_MEMORY_TARGET = 2;

export interface FleetRun {
  operator: string;
  seeded: string;
  seedSeconds: number;
  firstStart: OperatorCacheResult;
  restart: OperatorCacheResult;
  syncMet: boolean;
  memoryMet: boolean;
}

export interface FleetResults {
  peerpod: FleetRun;
  kvm: FleetRun;
}

async function twice(
  log: (s: string) => void,
  operator: string,
  input: OperatorCacheInput,
): Promise<Pick<FleetRun, 'firstStart' | 'restart' | 'syncMet' | 'memoryMet'>> {
  const run = async (what: string): Promise<OperatorCacheResult> => {
    log(`fleet: ${operator}, ${what} (child process, --expose-gc)`);
    const r = await runWorker<OperatorCacheResult>('operator-cache.ts', input, {
      // FLEET_CPU_PROF=<dir>: a CPU profile of each operator run, to find where its time goes.
      nodeFlags: [
        '--expose-gc',
        ...(process.env.FLEET_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FLEET_CPU_PROF}`] : []),
      ],
      timeoutMs: 900_000,
    });
    log(
      `  ${r.objects} cached (${Object.entries(r.cached)
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )}); sync ${round(r.syncSeconds, 2)} s, idle after ${round(r.drainSeconds, 2)} s, ${round(r.heapBytesPerObject)} heap B/object for ${round(r.jsonBytesPerObject)} B of JSON`,
    );
    return r;
  };
  const firstStart = await run('first start');
  const restart = await run('restart');
  return {
    firstStart,
    restart,
    syncMet: restart.syncSeconds < FLEET_SYNC_TARGET_SECONDS,
    memoryMet: restart.ratioToCachedJson <= FLEET_MEMORY_TARGET,
  };
}

export async function runFleetBench(log: (s: string) => void): Promise<FleetResults> {
  return { peerpod: await peerPodFleet(log), kvm: await kvmFleet(log) };
}

async function peerPodFleet(log: (s: string) => void): Promise<FleetRun> {
  const cp = await startControlPlane();
  try {
    const client = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
    await installCrds(client, allCrds(), { fieldManager: 'bench' });
    client.close();
    await ensureNamespace(cp, NS);
    await ensureNamespace(cp, SETTINGS_NS);
    await ensureNamespace(cp, 'kube-system');
    const pods = resourceDef(cp, '', 'v1', 'pods');
    const peerPods = resourceDef(cp, 'confidentialcontainers.org', 'v1alpha1', 'peerpods');
    const ctx = internalContext('bench');
    log(`fleet: seeding ${COUNT} Pods and their PeerPods`);
    const t0 = performance.now();
    for (let i = 0; i < COUNT; i++) {
      const pod = (await cp.internals.store.create(
        pods,
        NS,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `peer-${i}`, namespace: NS, labels: { app: 'fleet' } },
          spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
        },
        ctx,
      )) as unknown as KubeObject;
      const pp = newPeerPod(pod, 'simulated', `node-${i % 100}`);
      await cp.internals.store.create(peerPods, NS, { ...pp, spec: { ...pp.spec, instanceID: `sim-${i}` } }, ctx);
    }
    const seedSeconds = (performance.now() - t0) / 1000;
    const input: OperatorCacheInput = { kubeconfig: cp.kubeconfig, operator: 'peerpod', namespace: SETTINGS_NS };
    return {
      operator: 'PeerPod controller',
      seeded: `${COUNT} PeerPods`,
      seedSeconds,
      ...(await twice(log, 'PeerPod controller', input)),
    };
  } finally {
    await cp.stop();
  }
}

async function kvmFleet(log: (s: string) => void): Promise<FleetRun> {
  // The management cluster has room for every node pod, as a real one would: without nodes the
  // scheduler retries 5,000 unschedulable pods for the whole run, load no fleet carries.
  const nodes = Math.ceil((KVM_CLUSTERS * (KVM_WORKERS + 1)) / 100);
  const cp = await startControlPlane({
    nodes,
    simulatedNodes: {
      // 100 node pods of 2 CPUs and 4 GB each fit in the default pod count (110).
      capacity: { ...DEFAULT_NODE_CONFIG.capacity, cpu: '256', memory: '2Ti', 'ephemeral-storage': '10Ti' },
    },
  });
  try {
    const client = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
    await installCrds(client, kvmCrds(), { fieldManager: 'bench' });
    const [release, sample] = kvmSamples() as [KubeObject, KubeObject];
    await client.create(Releases, release);
    client.close();
    const ns = KVM_DEFAULTS.kvmConfigNamespace;
    const configs = resourceDef(cp, 'provider.giantswarm.io', 'v1alpha1', 'kvmconfigs');
    const ctx = internalContext('bench');
    log(`fleet: seeding ${KVM_CLUSTERS} KVMConfigs of 1 master and ${KVM_WORKERS} workers`);
    const t0 = performance.now();
    const spec = sample.spec as {
      cluster: Record<string, unknown>;
      kvm: { workers: unknown[] } & Record<string, unknown>;
    };
    for (let i = 0; i < KVM_CLUSTERS; i++) {
      const id = `f${String(i).padStart(4, '0')}`;
      await cp.internals.store.create(
        configs,
        ns,
        {
          ...sample,
          metadata: {
            name: id,
            namespace: ns,
            labels: { [Labels.operatorVersion]: KVM_DEFAULTS.version, [Labels.releaseVersion]: '14.1.0' },
          },
          spec: {
            ...spec,
            cluster: {
              ...spec.cluster,
              id,
              etcd: { domain: `etcd.${id}.k8s.example.com`, port: 2379, prefix: 'giantswarm.io' },
              kubernetes: { api: { domain: `api.${id}.k8s.example.com`, securePort: 443 } },
              workers: Array.from({ length: KVM_WORKERS }, (_, w) => ({ id: `w${w + 1}` })),
            },
            kvm: { ...spec.kvm, workers: Array.from({ length: KVM_WORKERS }, () => spec.kvm.workers[0]) },
          },
        },
        ctx,
      );
    }
    const seedSeconds = (performance.now() - t0) / 1000;
    const input: OperatorCacheInput = { kubeconfig: cp.kubeconfig, operator: 'kvm', namespace: ns };
    return {
      operator: 'kvm-operator',
      seeded: `${KVM_CLUSTERS} KVMConfigs × ${KVM_WORKERS + 1} nodes`,
      seedSeconds,
      ...(await twice(log, 'kvm-operator', input)),
    };
  } finally {
    await cp.stop();
  }
}
