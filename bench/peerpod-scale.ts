// Peer pods at fleet size (#18 item 3), on the whole local stack as `peerpods start` wires it: the
// adaptors are pods of their DaemonSet (one per node), the PeerPod controller and the webhook pods
// of their Deployments, all talking to the API server over HTTPS with their ServiceAccount tokens.
// The simulated cloud keeps its VMs in a directory every pod shares; this process reads that
// directory to see the cloud as its console would.
// 1. Fleet: PEERPOD_SCALE_N (10,000) peer pods on PEERPOD_SCALE_NODES (100) nodes, the sample
//    PeerPodConfig's limit set to N (so the nodes are exactly full), every create taking 2 s and every
//    delete 1 s (PROVIDER_CREATE/DELETE_LATENCY_MS in peer-pods-cm). Pods are created at
//    PEERPOD_SCALE_RATE (200)/s: p50/p99 from each create sent to its pod seen Running; then
//    deleted at the same rate: p50/p99 from each delete sent to its VM gone from the cloud.
//    Leaked VMs are those left once every pod and PeerPod is gone; duplicates are VMs made beyond one
//    per pod (the cloud's claimed IDs, which are never reused).
// 2. Cleanup: PEERPOD_SCALE_CLEANUP (1,000) dangling PeerPods (deleted, their finalizer held, no pod
//    and no adaptor to release them) and as many orphan VMs (this cluster's tag, no PeerPod) at once:
//    time until each set is gone. The controller deletes both through one limit per provider (20);
//    the cloud-side check is the most VMs whose deletes all completed within one second, since with
//    a 1 s delete those were all in flight together.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigMaps, Pods, silentLogger } from '../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods } from '../src/peerpod/api/index.ts';
import type { PeerPod } from '../src/peerpod/api/index.ts';
import { DEFAULT_MAX_CONCURRENT_DELETES } from '../src/peerpod/controllers/index.ts';
import { CLUSTER_UID_TAG } from '../src/peerpod/providers/index.ts';
import { CREATE_LATENCY_KEY, DELETE_LATENCY_KEY } from '../src/peerpod/providers/latency.ts';
import { mapLimit } from '../src/peerpod/providers/wait.ts';
import { STACK_NAMESPACE, peerPodManifest } from '../src/peerpod/main/index.ts';
import { POD_VISIBLE_TMPDIR, startLocalStack } from '../src/cli/start/local-stack.ts';
import type { LocalStack } from '../src/cli/start/local-stack.ts';
import { latencyStats, nowMs, round, sleep, waitUntil } from './common.ts';
import { watchRunning } from './peerpod-e2e.ts';

const N = Number(process.env.PEERPOD_SCALE_N ?? 10_000);
const NODES = Number(process.env.PEERPOD_SCALE_NODES ?? 100);
const RATE = Number(process.env.PEERPOD_SCALE_RATE ?? 200);
const CLEANUP = Number(process.env.PEERPOD_SCALE_CLEANUP ?? 1000);
const CREATE_DELAY_MS = 2000;
const DELETE_DELAY_MS = 1000;
/** Short, so the orphans' time is mostly the controller's work; the default is 10 min. */
const ORPHAN_GRACE_MS = 10_000;
const SWEEP_INTERVAL_MS = 5_000;
const NS = 'default';
/** Requests this process keeps in flight while pacing creates and deletes (256 were slower than 64). */
const IN_FLIGHT = 64;

export interface PeerPodScaleResults extends Record<string, number> {
  pods: number;
  nodes: number;
}

/** The cloud as its console shows it: every instance ID in the state directory. */
function cloudIds(dir: string): Set<string> {
  const ids = new Set<string>();
  for (const f of readdirSync(dir)) if (f.endsWith('.json')) ids.add(f.slice(0, -'.json'.length));
  return ids;
}

/** IDs the cloud ever handed out: one file each, never reused. */
const claimedIds = (dir: string): number => readdirSync(path.join(dir, 'ids')).length;

/** Runs `fn` for each item, starting one every 1/rate s with at most IN_FLIGHT unfinished. */
async function paced<T>(items: readonly T[], rate: number, fn: (item: T) => Promise<void>): Promise<number> {
  const t0 = nowMs();
  let inFlight = 0;
  let freed: (() => void) | undefined;
  const all: Array<Promise<void>> = [];
  for (let i = 0; i < items.length; i++) {
    const due = t0 + (i * 1000) / rate;
    if (nowMs() < due) await sleep(due - nowMs());
    while (inFlight >= IN_FLIGHT) await new Promise<void>((r) => (freed = r));
    inFlight++;
    all.push(
      fn(items[i] as T).finally(() => {
        inFlight--;
        freed?.();
      }),
    );
  }
  await Promise.all(all);
  return (nowMs() - t0) / 1000;
}

/** Retries a call the server answered with 429 or 5xx (as a controller would, after 200 ms); counts the retries. */
async function retried<T>(count: { n: number }, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const transient = typeof code === 'number' && (code === 429 || code >= 500);
      if (!transient || attempt >= 20) throw err;
      count.n++;
      await sleep(200);
    }
  }
}

interface Gone {
  /** The last poll that still saw the VM, and the first that did not. */
  after: number;
  by: number;
  /** Gone before the polling began (never seen). */
  unseen?: boolean;
}

/**
 * Polls the cloud every 100 ms from now on, noting for every VM it has seen when it went (to within
 * two polls). Started before the deletes, so no VM goes before the first poll.
 */
function pollCloud(dir: string): {
  gone: Map<string, Gone>;
  waitFor(ids: Iterable<string>, timeoutMs: number): Promise<void>;
  stop(): void;
} {
  const gone = new Map<string, Gone>();
  let live = cloudIds(dir);
  const seen = new Set(live);
  const started = nowMs();
  let previous = started;
  const timer = setInterval(() => {
    const now = cloudIds(dir);
    const at = nowMs();
    for (const id of live) if (!now.has(id)) gone.set(id, { after: previous, by: at });
    for (const id of now) seen.add(id);
    live = now;
    previous = at;
  }, 100);
  return {
    gone,
    async waitFor(ids, timeoutMs) {
      const want = [...ids];
      // A VM already gone at the first poll was never seen: noted as gone before it (and reported).
      for (const id of want) if (!seen.has(id)) gone.set(id, { after: started, by: started, unseen: true });
      await waitUntil(`${want.length} VMs gone`, async () => want.every((id) => gone.has(id)), timeoutMs, 100);
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * The most deletes that certainly overlapped: VMs whose disappearance (known to within a poll) all
 * falls inside one window shorter than a delete takes were all in flight at the window's start.
 */
function overlappingDeletes(gone: Gone[], deleteMs: number): number {
  const byStart = [...gone].sort((a, b) => a.after - b.after);
  let most = 0;
  for (let i = 0; i < byStart.length; i++) {
    const start = (byStart[i] as { after: number }).after;
    let n = 0;
    for (let j = i; j < byStart.length; j++) {
      const g = byStart[j] as { after: number; by: number };
      if (g.after - start >= deleteMs) break;
      if (g.by - start < deleteMs) n++;
    }
    most = Math.max(most, n);
  }
  return most;
}

async function fleet(local: LocalStack, dir: string): Promise<Record<string, number>> {
  const client = local.stack.client;
  const abort = new AbortController();
  try {
    const running = watchRunning(local, abort.signal);
    const names = Array.from({ length: N }, (_, i) => `fleet-${i}`);
    const created = new Map<string, number>();
    const claimedBefore = claimedIds(dir);
    const createRetries = { n: 0 };
    const createSeconds = await paced(names, RATE, async (name) => {
      created.set(name, nowMs());
      await retried(createRetries, () => client.create(Pods, peerPodManifest(name, { cpu: '1', memory: '128Mi' }, NS)));
    });
    const t0 = nowMs() - createSeconds * 1000;
    await waitUntil(`${N} peer pods Running`, async () => running.size >= N, 900_000 + N * 100, 200);
    const allRunningS = (nowMs() - t0) / 1000;
    const up = latencyStats(names.map((name) => (running.get(name) as number) - (created.get(name) as number)));
    // Every adaptor must have applied the delay (settings are read live): no pod can be faster.
    if (!(up.min >= CREATE_DELAY_MS)) throw new Error(`bench: a pod was Running ${up.min} ms after its create`);

    const ids = new Map<string, string>();
    for (const pp of (await client.listAll<PeerPod>(PeerPods, { namespace: NS })).items) {
      const owner = pp.metadata.ownerReferences?.[0]?.name;
      if (owner && pp.spec?.instanceID) ids.set(owner, pp.spec.instanceID);
    }
    const live = cloudIds(dir);
    const missing = [...ids.values()].filter((id) => !live.has(id)).length;
    const unrecorded = N - ids.size;
    const claimedUp = claimedIds(dir) - claimedBefore;

    const deleted = new Map<string, number>();
    const cloud = pollCloud(dir);
    const t1 = nowMs();
    const deleteRetries = { n: 0 };
    const deleteSeconds = await paced(names, RATE, async (name) => {
      deleted.set(name, nowMs());
      await retried(deleteRetries, () => client.delete(Pods, name, NS));
    });
    await cloud.waitFor(ids.values(), 900_000 + N * 100).finally(() => cloud.stop());
    const gone = cloud.gone;
    const allGoneS = (nowMs() - t1) / 1000;
    await waitUntil(
      'every pod and PeerPod gone',
      async () =>
        (await client.list(Pods, { namespace: NS, limit: 1 })).items.length === 0 &&
        (await client.list(PeerPods, { namespace: NS, limit: 1 })).items.length === 0,
      300_000,
      500,
    );
    const down = latencyStats(
      [...ids].map(([name, id]) => (gone.get(id)?.by as number) - (deleted.get(name) as number)),
    );
    if (!(down.min >= DELETE_DELAY_MS)) throw new Error(`bench: a VM was gone ${down.min} ms after its pod's delete`);
    return {
      create_rate_target_per_s: RATE,
      create_rate_achieved_per_s: round(N / createSeconds),
      create_retries: createRetries.n,
      created_to_running_p50_ms: up.p50,
      created_to_running_p99_ms: up.p99,
      created_to_running_max_ms: up.max,
      all_running_s: round(allRunningS, 1),
      vms_missing_at_running: missing + unrecorded,
      duplicate_vms: claimedUp - N,
      delete_rate_achieved_per_s: round(N / deleteSeconds),
      delete_retries: deleteRetries.n,
      deleted_to_vm_gone_p50_ms: down.p50,
      deleted_to_vm_gone_p99_ms: down.p99,
      deleted_to_vm_gone_max_ms: down.max,
      all_vms_gone_s: round(allGoneS, 1),
      leaked_vms: cloudIds(dir).size,
    };
  } finally {
    abort.abort();
  }
}

async function cleanup(local: LocalStack, dir: string): Promise<Record<string, number>> {
  const client = local.stack.client;
  const cloud = local.stack.provider;
  const tags = { [CLUSTER_UID_TAG]: local.stack.clusterUid };
  const makeOne = (prefix: string, i: number) =>
    cloud.createInstance({
      podName: `${prefix}-${i}`,
      podNamespace: NS,
      sandboxId: `${i}`.padStart(8, '0'),
      vcpus: 1,
      memoryMiB: 128,
      tags,
    });
  const make = (prefix: string) =>
    mapLimit(
      Array.from({ length: CLEANUP }, (_, i) => i),
      100,
      (i) => makeOne(prefix, i),
    );
  // Dangling: a PeerPod names each VM, then deletion is requested with no adaptor left to act on it.
  // Each PeerPod right after its VM: a VM unnamed for longer than the grace would be swept as an orphan.
  const danglingVms = await mapLimit(
    Array.from({ length: CLEANUP }, (_, i) => i),
    32,
    async (i) => {
      const vm = await makeOne('dangling', i);
      await client.create<PeerPod>(PeerPods, {
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPod',
        metadata: { name: `dangling-${vm.id}`, namespace: NS, finalizers: [PEERPOD_FINALIZER] },
        spec: { cloudProvider: 'simulated', instanceID: vm.id },
      });
      return vm;
    },
  );
  const cloudPoll = pollCloud(dir);
  const t0 = nowMs();
  const [, orphanVms] = await Promise.all([
    mapLimit(danglingVms, 64, (vm) => client.delete(PeerPods, `dangling-${vm.id}`, NS)),
    make('orphan'),
  ]);
  const setUpS = (nowMs() - t0) / 1000;
  const danglingIds = new Set(danglingVms.map((vm) => vm.id));
  await cloudPoll.waitFor([...danglingIds, ...orphanVms.map((vm) => vm.id)], 900_000).finally(() => cloudPoll.stop());
  const gone = cloudPoll.gone;
  const allGoneS = (nowMs() - t0) / 1000;
  await waitUntil(
    'every dangling PeerPod released',
    async () => (await client.list(PeerPods, { namespace: NS, limit: 1 })).items.length === 0,
    300_000,
    200,
  );
  const lastOf = (pick: (id: string) => boolean) =>
    (Math.max(...[...gone].filter(([id]) => pick(id)).map(([, g]) => g.by)) - t0) / 1000;
  return {
    cleanup_dangling: CLEANUP,
    cleanup_orphans: CLEANUP,
    cleanup_set_up_s: round(setUpS, 1),
    cleanup_dangling_vms_gone_s: round(
      lastOf((id) => danglingIds.has(id)),
      1,
    ),
    cleanup_dangling_released_s: round((nowMs() - t0) / 1000, 1),
    cleanup_orphans_gone_s: round(
      lastOf((id) => !danglingIds.has(id)),
      1,
    ),
    cleanup_all_gone_s: round(allGoneS, 1),
    cleanup_orphan_grace_s: ORPHAN_GRACE_MS / 1000,
    cleanup_sweep_interval_s: SWEEP_INTERVAL_MS / 1000,
    cleanup_delete_limit: DEFAULT_MAX_CONCURRENT_DELETES,
    cleanup_deletes_overlapping_max: overlappingDeletes(
      [...gone.values()].filter((g) => !g.unseen),
      DELETE_DELAY_MS,
    ),
    cleanup_gone_before_start: [...gone.values()].filter((g) => g.unseen).length,
    cleanup_mean_deletes_in_flight: round((2 * CLEANUP * DELETE_DELAY_MS) / 1000 / allGoneS, 1),
    cleanup_leaked_vms: cloudIds(dir).size,
  };
}

export async function runPeerPodScaleBench(log: (s: string) => void): Promise<PeerPodScaleResults> {
  log(
    `peerpod-scale: ${N} peer pods on ${NODES} nodes at ${RATE}/s (adaptor pods, simulated cloud: ${CREATE_DELAY_MS / 1000} s create, ${DELETE_DELAY_MS / 1000} s delete), then ${CLEANUP} dangling PeerPods + ${CLEANUP} orphan VMs`,
  );
  const stateDir = await mkdtemp(path.join(POD_VISIBLE_TMPDIR, 'peerpods-bench-scale-'));
  const t0 = nowMs();
  const local = await startLocalStack({
    nodes: NODES,
    provider: 'simulated',
    stateDir,
    logger: silentLogger(),
    limit: N,
    orphanGraceMs: ORPHAN_GRACE_MS,
    sweepIntervalMs: SWEEP_INTERVAL_MS,
    readyTimeoutMs: 600_000,
    // For a look with kubectl while it runs.
    kubeconfigPath: path.join(stateDir, 'kubeconfig'),
  });
  try {
    const startS = (nowMs() - t0) / 1000;
    log(`peerpod-scale: ${NODES} nodes and their adaptor pods Ready in ${round(startS, 1)} s`);
    const dir = local.stack.providerConfig.SIMULATED_STATE_DIR as string;
    await local.stack.client.patch(
      ConfigMaps,
      'peer-pods-cm',
      STACK_NAMESPACE,
      { data: { [CREATE_LATENCY_KEY]: String(CREATE_DELAY_MS), [DELETE_LATENCY_KEY]: String(DELETE_DELAY_MS) } },
      'merge',
    );
    // The adaptors and the controller rebuild their provider when its settings change; the fleet
    // checks afterwards that no pod came up faster than the delay.
    await sleep(2000);
    const a = await fleet(local, dir);
    log(`peerpod-scale: fleet ${JSON.stringify(a)}`);
    const b = await cleanup(local, dir);
    log(`peerpod-scale: cleanup ${JSON.stringify(b)}`);
    return {
      pods: N,
      nodes: NODES,
      stack_ready_s: round(startS, 1),
      create_delay_ms: CREATE_DELAY_MS,
      delete_delay_ms: DELETE_DELAY_MS,
      ...a,
      ...b,
    };
  } finally {
    await local.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}
