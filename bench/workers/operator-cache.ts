// An operator at fleet size, in this process on one Manager against a control plane seeded by
// bench/fleet.ts: `peerpod` is setupPeerPodController (the simulated provider, no sweep), `kvm` is
// setupKvmOperator (its four controllers and the node drainer). Reports the time until every cache
// of the manager is synced (the controllers start reconciling then), the time until its work queues
// are idle (every object reconciled, nothing added or finished for 500 ms; requeues waiting for later
// do not count), and the heap it holds after a full GC once idle, against the JSON of what its caches
// hold.
import { Registry } from 'prom-client';
import { KubeClient, Manager, Namespaces, silentLogger } from '../../src/runtime/index.ts';
import { setupPeerPodController } from '../../src/peerpod/controllers/index.ts';
import { setupKvmOperator } from '../../src/kvm/index.ts';
import { SimulatedProvider } from '../../src/peerpod/providers/index.ts';
import { nowMs, settledMemory, workerMain } from '../common.ts';

export interface OperatorCacheInput {
  kubeconfig: string;
  operator: 'peerpod' | 'kvm';
  /** The PeerPod controller's settings namespace, or the kvm-operator's KVMConfig namespace. */
  namespace: string;
}

export interface OperatorCacheResult {
  /** Objects in the manager's caches, by resource. */
  cached: Record<string, number>;
  objects: number;
  syncSeconds: number;
  drainSeconds: number;
  heapGrowthBytes: number;
  rssGrowthBytes: number;
  cachedJsonBytes: number;
  heapBytesPerObject: number;
  jsonBytesPerObject: number;
  ratioToCachedJson: number;
}

/** Sum of a metric's samples (of one name, for a histogram's `_count`). */
async function total(registry: Registry, metric: string, sample = metric): Promise<number> {
  const m = registry.getSingleMetric(metric);
  if (!m) return 0;
  const { values } = await m.get();
  return values
    .filter(
      (v) =>
        (v as { metricName?: string }).metricName === undefined || (v as { metricName?: string }).metricName === sample,
    )
    .reduce((a, v) => a + v.value, 0);
}

workerMain<OperatorCacheInput, OperatorCacheResult>(async (input) => {
  const client = KubeClient.fromKubeconfigString(input.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
  // Warm the connection and the JSON path so the baseline holds the client's own state.
  await client.list(Namespaces, { limit: 10 });
  const registry = new Registry();
  const manager = new Manager({
    client,
    logger: silentLogger(),
    metricsRegistry: registry,
    server: false,
    handleSignals: false,
  });
  if (input.operator === 'peerpod') {
    const cloud = new SimulatedProvider();
    setupPeerPodController(manager, {
      namespace: input.namespace,
      providerFactory: async () => cloud,
      sweepProviders: [],
      sweepIntervalMs: 0,
    });
  } else {
    setupKvmOperator(manager, { kvmConfigNamespace: input.namespace });
  }
  const before = settledMemory();
  const t0 = nowMs();
  const running = manager.start();
  const informers = manager.informers.informers();
  await Promise.all(informers.map((inf) => inf.waitForSync(undefined, 120_000)));
  const syncSeconds = (nowMs() - t0) / 1000;
  // Idle: no queue holds a key, and nothing was added or finished for 500 ms running.
  let last = '';
  let idleSince: number | undefined;
  const deadline = nowMs() + 600_000;
  for (;;) {
    const depth = await total(registry, 'workqueue_depth');
    const marks = `${await total(registry, 'workqueue_adds_total')}/${await total(registry, 'workqueue_work_duration_seconds', 'workqueue_work_duration_seconds_count')}`;
    if (depth > 0 || marks !== last) idleSince = undefined;
    else if (idleSince === undefined) idleSince = nowMs();
    else if (nowMs() - idleSince >= 500) break;
    last = marks;
    if (nowMs() > deadline) throw new Error(`the ${input.operator} operator did not go idle in 600 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const drainSeconds = ((idleSince as number) - t0) / 1000;
  const after = settledMemory();
  const cached: Record<string, number> = {};
  let objects = 0;
  let cachedJsonBytes = 0;
  for (const inf of informers) {
    const items = inf.list();
    const kind = items[0]?.kind;
    if (kind) cached[kind] = (cached[kind] ?? 0) + items.length;
    objects += items.length;
    for (const o of items) cachedJsonBytes += Buffer.byteLength(JSON.stringify(o));
  }
  const heapGrowthBytes = after.heapUsed - before.heapUsed;
  await manager.stop();
  await running.catch(() => undefined);
  client.close();
  return {
    cached,
    objects,
    syncSeconds,
    drainSeconds,
    heapGrowthBytes,
    rssGrowthBytes: after.rss - before.rss,
    cachedJsonBytes,
    heapBytesPerObject: heapGrowthBytes / objects,
    jsonBytesPerObject: cachedJsonBytes / objects,
    ratioToCachedJson: heapGrowthBytes / cachedJsonBytes,
  };
});
