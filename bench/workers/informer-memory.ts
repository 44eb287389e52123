// Our informer's cache: time to list+sync `count` ConfigMaps (paged LIST over HTTPS, then watch),
// and heap bytes per cached object after a full GC, against the JSON size of the cached objects.
import { ConfigMaps, InformerFactory, KubeClient, silentLogger } from '../../src/runtime/index.ts';
import { nowMs, settledMemory, workerMain } from '../common.ts';

export interface InformerMemoryInput {
  kubeconfig: string;
  namespace: string;
  count: number;
  servedJsonBytes: number;
}

export interface InformerMemoryResult {
  objects: number;
  syncSeconds: number;
  heapGrowthBytes: number;
  rssGrowthBytes: number;
  cachedJsonBytes: number;
  servedJsonBytes: number;
  heapBytesPerObject: number;
  jsonBytesPerObject: number;
  ratioToCachedJson: number;
  ratioToServedJson: number;
  pageSize: number;
  /** Whether InformerFactory.stop() returned within 5 s. */
  stopReturned: boolean;
}

workerMain<InformerMemoryInput, InformerMemoryResult>(async (input) => {
  const client = KubeClient.fromKubeconfigString(input.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
  // Warm the connection and the JSON path so the baseline holds the client's own state.
  await client.list(ConfigMaps, { namespace: input.namespace, limit: 10 });
  const factory = new InformerFactory(client, { logger: silentLogger(), metricsRegistry: null });
  const informer = factory.informerFor(ConfigMaps, { namespace: input.namespace });
  const before = settledMemory();
  const t0 = nowMs();
  factory.start();
  await informer.waitForSync(undefined, 120_000);
  const syncSeconds = (nowMs() - t0) / 1000;
  const after = settledMemory();
  const objects = informer.list();
  let cachedJsonBytes = 0;
  for (const o of objects) cachedJsonBytes += Buffer.byteLength(JSON.stringify(o));
  const heapGrowthBytes = after.heapUsed - before.heapUsed;
  // Bounded: a stop that does not return is reported, not waited for (the process exits anyway).
  const stopReturned = await Promise.race([
    factory.stop().then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
  ]);
  client.close();
  return {
    objects: objects.length,
    syncSeconds,
    heapGrowthBytes,
    rssGrowthBytes: after.rss - before.rss,
    cachedJsonBytes,
    servedJsonBytes: input.servedJsonBytes,
    heapBytesPerObject: heapGrowthBytes / objects.length,
    jsonBytesPerObject: cachedJsonBytes / objects.length,
    ratioToCachedJson: heapGrowthBytes / cachedJsonBytes,
    ratioToServedJson: heapGrowthBytes / input.servedJsonBytes,
    pageSize: factory.options.pageSize,
    stopReturned,
  };
});
