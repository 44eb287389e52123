// The control plane of the cluster-scale benchmark, alone in this process so its RSS, heap and CPU
// are the server's own (scheduler, kubelets, controllers included), run from dist/. Input:
// `{ nodes }`. Sends `{ ready: { url, caPem, token, startMs } }` once the control plane serves with
// its nodes created Ready, answers `memory` with `{ memory }` (heap after two full GCs, RSS as it
// is, peak RSS, CPU time so far, the watch history's size), and exits on `stop` (through
// `cp.stop()`, so `--cpu-prof` writes its profile).
import type { ControlPlane, MemoryStorage, startControlPlane } from '../../src/kube/index.ts';
import { nowMs, settledMemory } from '../common.ts';

// The build, as `npm start` runs it (cluster-scale.ts builds first): the sources through tsx carry
// the loader's per-closure naming on every hot path, which production never pays.
const kube = (await import(new URL('../../dist/kube/index.js', import.meta.url).href)) as {
  startControlPlane: typeof startControlPlane;
};

interface Input {
  nodes: number;
}

function memory(cp: ControlPlane): Record<string, number> {
  const m = settledMemory();
  const cpu = process.cpuUsage();
  // The watch history is bounded (10,000 changes, 256 MiB): a constant that small runs hold whole.
  const history = (cp.internals.storage as Partial<MemoryStorage>).historyUsage?.();
  return {
    heapUsed: m.heapUsed,
    rss: m.rss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    cpuMs: (cpu.user + cpu.system) / 1000,
    historyBytes: history?.bytes ?? 0,
    historyChanges: history?.changes ?? 0,
  };
}

process.once('message', (msg: unknown) => {
  void (async () => {
    const input = msg as Input;
    const t0 = nowMs();
    const cp = await kube.startControlPlane({ nodes: input.nodes, publishRootCaConfigMaps: false });
    process.send?.({ ready: { url: cp.url, caPem: cp.caPem, token: cp.token, startMs: nowMs() - t0 } });
    process.on('message', (m: unknown) => {
      if (m === 'memory') process.send?.({ memory: memory(cp) });
      if (m === 'stop') void cp.stop().then(() => process.exit(0));
    });
  })().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
});
