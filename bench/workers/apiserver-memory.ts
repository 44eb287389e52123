// Memory of stored objects: a control plane in this (--expose-gc) process, heap and RSS after a
// full GC before and after creating `count` ConfigMaps through `internals.store.create`.
import { startControlPlane } from '../../src/kube/index.ts';
import { nowMs, settledMemory, workerMain } from '../common.ts';
import { ensureNamespace, seedConfigMaps, storedJsonBytes } from '../seed.ts';

export interface MemoryInput {
  count: number;
}

export interface MemoryResult {
  count: number;
  storedJsonBytes: number;
  heapGrowthBytes: number;
  rssGrowthBytes: number;
  /** Pages V8 holds for the heap beyond what the objects use (young generation, free lists). */
  heapTotalGrowthBytes: number;
  rssBeforeBytes: number;
  rssAfterBytes: number;
  heapRatio: number;
  rssRatio: number;
  seedSeconds: number;
  gcExposed: boolean;
}

workerMain<MemoryInput, MemoryResult>(async ({ count }) => {
  const cp = await startControlPlane();
  await ensureNamespace(cp, 'bench-mem');
  // Warm the create path (JIT, lazily built validators) before the baseline.
  await seedConfigMaps(cp, 'bench-warm', 200, 'warm-');
  const before = settledMemory();
  const t0 = nowMs();
  await seedConfigMaps(cp, 'bench-mem', count);
  const seedSeconds = (nowMs() - t0) / 1000;
  const after = settledMemory();
  const { bytes } = storedJsonBytes(cp, '/core/configmaps/bench-mem/');
  const heapGrowthBytes = after.heapUsed - before.heapUsed;
  const rssGrowthBytes = after.rss - before.rss;
  await cp.stop();
  return {
    count,
    storedJsonBytes: bytes,
    heapGrowthBytes,
    rssGrowthBytes,
    heapTotalGrowthBytes: after.heapTotal - before.heapTotal,
    rssBeforeBytes: before.rss,
    rssAfterBytes: after.rss,
    heapRatio: heapGrowthBytes / bytes,
    rssRatio: rssGrowthBytes / bytes,
    seedSeconds,
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
});
