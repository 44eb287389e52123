// PeerPod controller benchmark.
// 1. Dangling PeerPods (Pod gone, finalizer still there) on the `simulated` provider at 100 ms per
//    delete: time until every VM is deleted and every finalizer released, with our defaults and with
//    upstream's settings (1 worker, no provider concurrency limit), in the same run and process.
// 2. Real QEMU VMs: time to create them, and time for the controller to clean them all up after
//    their Pods are deleted.
// Sizes: PEERPOD_BENCH_N (default 1000), PEERPOD_BENCH_LATENCY_MS (100), PEERPOD_BENCH_QEMU (50; 0 skips).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { startControlPlane } from '../src/kube/index.ts';
import type { ControlPlane } from '../src/kube/index.ts';
import { ConfigMaps, KubeClient, Manager, Namespaces, Pods, installCrds, silentLogger } from '../src/runtime/index.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods, allCrds } from '../src/peerpod/api/index.ts';
import type { PeerPod } from '../src/peerpod/api/index.ts';
import { DEFAULT_MAX_CONCURRENT_DELETES, setupPeerPodController } from '../src/peerpod/controllers/index.ts';
import type { PeerPodControllerOptions } from '../src/peerpod/controllers/index.ts';
import { CLUSTER_UID_TAG, SimulatedProvider, createProvider } from '../src/peerpod/providers/index.ts';
import type { CloudProvider } from '../src/peerpod/providers/index.ts';
import { mapLimit } from '../src/peerpod/providers/wait.ts';

const N = Number(process.env.PEERPOD_BENCH_N ?? 1000);
const LATENCY_MS = Number(process.env.PEERPOD_BENCH_LATENCY_MS ?? 100);
const QEMU_VMS = Number(process.env.PEERPOD_BENCH_QEMU ?? 50);
const NS = 'peerpods-system';
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function noPeerPodsLeft(client: KubeClient): Promise<boolean> {
  return (await client.list(PeerPods, { limit: 1 })).items.length === 0;
}

function startController(cp: ControlPlane, opts: Partial<PeerPodControllerOptions>) {
  const registry = new Registry();
  const client = KubeClient.fromKubeconfigString(cp.kubeconfig, { metricsRegistry: registry, logger: silentLogger() });
  const manager = new Manager({
    client,
    logger: silentLogger(),
    metricsRegistry: registry,
    server: false,
    handleSignals: false,
  });
  const handle = setupPeerPodController(manager, { namespace: NS, sweepIntervalMs: 0, ...opts });
  const running = manager.start();
  return {
    handle,
    async stop() {
      await manager.stop();
      await running;
      client.close();
    },
  };
}

function peerPod(name: string, provider: string, id: string, owner?: KubeObject): PeerPod {
  return {
    apiVersion: 'confidentialcontainers.org/v1alpha1',
    kind: 'PeerPod',
    metadata: {
      name,
      namespace: 'default',
      finalizers: [PEERPOD_FINALIZER],
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'Pod',
                name: owner.metadata.name as string,
                uid: owner.metadata.uid as string,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: { cloudProvider: provider, instanceID: id },
  };
}

/** N dangling PeerPods, then the controller with `opts`: seconds until all VMs and PeerPods are gone. */
async function danglingRun(
  cp: ControlPlane,
  client: KubeClient,
  label: string,
  opts: Partial<PeerPodControllerOptions>,
) {
  const sim = new SimulatedProvider({ latencyMs: LATENCY_MS });
  const vms = await mapLimit(
    Array.from({ length: N }, (_, i) => i),
    200,
    (i) =>
      sim.createInstance({
        podName: `${label}-${i}`,
        podNamespace: 'default',
        sandboxId: `${i}`.padStart(8, '0'),
        vcpus: 0,
        memoryMiB: 0,
        tags: {},
      }),
  );
  await mapLimit(vms, 32, (vm) => client.create(PeerPods, peerPod(`${label}-${vm.id}`, 'simulated', vm.id)));
  // Dangling: deletion requested, the finalizer holds them, and no adaptor is left to release it.
  await mapLimit(vms, 32, (vm) => client.delete(PeerPods, `${label}-${vm.id}`, 'default'));
  sim.resetStats();
  const t0 = performance.now();
  const ctl = startController(cp, { ...opts, providerFactory: async () => sim });
  try {
    await until(
      `${label}: all VMs deleted and finalizers released`,
      async () => sim.snapshot().length === 0 && (await noPeerPodsLeft(client)),
      30 * 60_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    return {
      seconds,
      maxConcurrentDeletes: sim.stats.maxConcurrentDeletes,
      semaphorePeak: ctl.handle.pool.semaphore('simulated').maxObserved,
      deleteCalls: sim.stats.calls.delete,
    };
  } finally {
    await ctl.stop();
  }
}

async function qemuRun(cp: ControlPlane, client: KubeClient, clusterUid: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'pp-bench-qemu-'));
  const logger = pino({ level: 'silent' });
  const qemu: CloudProvider = await createProvider('qemu', { QEMU_STATE_DIR: dir }, { logger });
  try {
    await client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: NS },
      data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir },
    });
    const pods = await mapLimit(
      Array.from({ length: QEMU_VMS }, (_, i) => i),
      16,
      (i) =>
        client.create<KubeObject>(Pods, {
          metadata: { name: `vm-${i}`, namespace: 'default' },
          spec: { containers: [{ name: 'c', image: 'pause' }] },
        }),
    );
    const t0 = performance.now();
    const vms = await mapLimit(pods, 10, (p) =>
      qemu.createInstance({
        podName: p.metadata.name as string,
        podNamespace: 'default',
        sandboxId: (p.metadata.uid as string).replace(/-/g, ''),
        vcpus: 1,
        memoryMiB: 64,
        tags: { [CLUSTER_UID_TAG]: clusterUid },
      }),
    );
    const createS = (performance.now() - t0) / 1000;
    await mapLimit(
      pods.map((p, i) => ({ p, vm: vms[i] })),
      16,
      ({ p, vm }) => client.create(PeerPods, peerPod(`${p.metadata.name}-resource`, 'qemu', vm.id, p)),
    );
    const ctl = startController(cp, {});
    try {
      const t1 = performance.now();
      await mapLimit(pods, 16, (p) => client.delete(Pods, p.metadata.name as string, 'default'));
      await until(
        'qemu: every VM deleted and PeerPod gone',
        async () => (await qemu.listInstances({})).length === 0 && (await noPeerPodsLeft(client)),
        10 * 60_000,
      );
      return { createS, cleanupS: (performance.now() - t1) / 1000 };
    } finally {
      await ctl.stop();
    }
  } finally {
    for (const vm of await qemu.listInstances({})) await qemu.deleteInstance(vm.id).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Figures for bench/run.ts. About 2 minutes: the upstream-settings run alone is N × latency. */
export async function runPeerPodBench(): Promise<Record<string, number>> {
  const cp = await startControlPlane();
  const client = KubeClient.fromKubeconfigString(cp.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  try {
    await installCrds(client, allCrds(), { fieldManager: 'peerpods' });
    await client.create(Namespaces, { metadata: { name: NS } });
    const clusterUid = (await client.get(Namespaces, 'kube-system')).metadata.uid as string;
    const ours = await danglingRun(cp, client, 'ours', {});
    const upstream = await danglingRun(cp, client, 'upstream', {
      maxConcurrentReconciles: 1,
      maxConcurrentDeletes: Infinity,
    });
    const out: Record<string, number> = {
      dangling_peerpods: N,
      delete_latency_ms: LATENCY_MS,
      dangling_cleanup_s: round(ours.seconds),
      dangling_cleanup_upstream_settings_s: round(upstream.seconds),
      dangling_speedup_x: round(upstream.seconds / ours.seconds, 1),
      dangling_per_s: round(N / ours.seconds, 0),
      provider_delete_limit: DEFAULT_MAX_CONCURRENT_DELETES,
      max_concurrent_deletes_observed: ours.maxConcurrentDeletes,
      max_concurrent_deletes_observed_upstream_settings: upstream.maxConcurrentDeletes,
      delete_calls: ours.deleteCalls,
    };
    if (QEMU_VMS > 0) {
      const q = await qemuRun(cp, client, clusterUid);
      out.qemu_vms = QEMU_VMS;
      out.qemu_create_s = round(q.createS);
      out.qemu_cleanup_s = round(q.cleanupS);
    }
    return out;
  } finally {
    client.close();
    await cp.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runPeerPodBench(), null, 2));
}
