// End-to-end peer-pod benchmark on the whole local stack (`peerpods start`'s wiring: control plane,
// webhook, scheduler, adaptors, PeerPod controller):
// 1. PEERPOD_E2E_N (default 200) peer pods created at once on the `simulated` provider (20 ms per
//    call) over 4 nodes: latency from each pod's create to its Running status (seen by a watch),
//    and from each pod's delete to its VM being gone from the provider.
// 2. PEERPOD_E2E_QEMU (default 20; 0 skips) pods on real QEMU VMs over 2 nodes, same figures.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { silentLogger, Pods } from '../src/runtime/index.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { PeerPods } from '../src/peerpod/api/index.ts';
import type { PeerPod } from '../src/peerpod/api/index.ts';
import { CLUSTER_UID_TAG } from '../src/peerpod/providers/index.ts';
import { peerPodManifest, qemuAvailable } from '../src/peerpod/main/index.ts';
import type { StackProviderName } from '../src/peerpod/main/index.ts';
import { POD_VISIBLE_TMPDIR, startLocalStack } from '../src/cli/start/local-stack.ts';
import type { LocalStack } from '../src/cli/start/local-stack.ts';
import { latencyStats, nowMs, round, waitUntil } from './common.ts';

const N = Number(process.env.PEERPOD_E2E_N ?? 200);
const QEMU_N = Number(process.env.PEERPOD_E2E_QEMU ?? 20);
const NS = 'default';

/** Records when each pod (of the default namespace) is first seen Running, from one watch. */
export function watchRunning(local: LocalStack, signal: AbortSignal): Map<string, number> {
  const seen = new Map<string, number>();
  void (async () => {
    try {
      for await (const ev of local.stack.client.watch<KubeObject>(Pods, { namespace: NS, signal })) {
        const name = ev.object.metadata?.name as string;
        const phase = (ev.object.status as { phase?: string } | undefined)?.phase;
        if (phase === 'Running' && !seen.has(name)) seen.set(name, nowMs());
      }
    } catch {
      // Aborted at the end of the measurement.
    }
  })();
  return seen;
}

async function measure(provider: StackProviderName, n: number, nodes: number): Promise<Record<string, number>> {
  const dir = await mkdtemp(path.join(POD_VISIBLE_TMPDIR, `peerpods-bench-e2e-${provider}-`));
  const local = await startLocalStack({
    nodes,
    provider,
    stateDir: dir,
    logger: silentLogger(),
    limit: n * 2,
    // The benchmark's VMs are all named by PeerPods; a sweep would only add noise.
    sweepIntervalMs: 0,
  });
  const client = local.stack.client;
  const abort = new AbortController();
  try {
    const running = watchRunning(local, abort.signal);
    const names = Array.from({ length: n }, (_, i) => `bench-${i}`);
    const created = new Map<string, number>();
    const t0 = nowMs();
    await Promise.all(
      names.map(async (name) => {
        await client.create(Pods, peerPodManifest(name, { cpu: '1', memory: '128Mi' }, NS));
        // The pod exists from here (admitted, mutated, stored); client-side queueing is not counted.
        created.set(name, nowMs());
      }),
    );
    const createBurstS = (nowMs() - t0) / 1000;
    await waitUntil(`${n} pods Running`, async () => running.size >= n, 120_000 + n * 500);
    const allRunningS = (nowMs() - t0) / 1000;
    const up = latencyStats(names.map((name) => (running.get(name) as number) - (created.get(name) as number)));

    const ids = new Map<string, string>();
    for (const pp of (await client.listAll<PeerPod>(PeerPods, { namespace: NS })).items) {
      const owner = pp.metadata.ownerReferences?.[0]?.name;
      if (owner && pp.spec?.instanceID) ids.set(owner, pp.spec.instanceID);
    }
    if (ids.size !== n) throw new Error(`bench: ${ids.size} PeerPods with an instance ID, want ${n}`);
    const deleted = new Map<string, number>();
    const gone = new Map<string, number>();
    const t1 = nowMs();
    const deletes = Promise.all(
      names.map(async (name) => {
        await client.delete(Pods, name, NS);
        deleted.set(name, nowMs());
      }),
    );
    const tags = { [CLUSTER_UID_TAG]: local.stack.clusterUid };
    // Polled while the deletes are in flight: a VM may go before its delete call has returned.
    await waitUntil(
      `${n} VMs gone`,
      async () => {
        const live = new Set((await local.stack.provider.listInstances(tags)).map((v) => v.id));
        const now = nowMs();
        for (const [name, id] of ids) if (!live.has(id) && !gone.has(name)) gone.set(name, now);
        return gone.size >= n;
      },
      120_000 + n * 500,
    );
    const allGoneS = (nowMs() - t1) / 1000;
    await deletes;
    const down = latencyStats(
      names.map((name) => Math.max(0, (gone.get(name) as number) - (deleted.get(name) as number))),
    );
    const p = provider === 'simulated' ? 'sim' : 'qemu';
    return {
      [`${p}_pods`]: n,
      [`${p}_create_burst_s`]: round(createBurstS, 2),
      [`${p}_create_to_running_p50_ms`]: up.p50,
      [`${p}_create_to_running_p99_ms`]: up.p99,
      [`${p}_all_running_s`]: round(allRunningS, 2),
      [`${p}_delete_to_vm_gone_p50_ms`]: down.p50,
      [`${p}_delete_to_vm_gone_p99_ms`]: down.p99,
      [`${p}_all_vms_gone_s`]: round(allGoneS, 2),
    };
  } finally {
    abort.abort();
    await local.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runPeerPodE2eBench(): Promise<Record<string, number>> {
  const out = await measure('simulated', N, 4);
  if (QEMU_N > 0 && (await qemuAvailable()).ok) Object.assign(out, await measure('qemu', QEMU_N, 2));
  return out;
}
