// The adaptor's metrics, registered once per registry: the main job runs one adaptor per node on
// one registry, and prom-client refuses a second registration of a name. The running-VM gauge is
// computed from the caches at scrape time (never counted up and down), so it cannot drift.
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export type VmOperation = 'create' | 'delete';

export interface RunningVmSource {
  node: string;
  provider(): string;
  count(): number;
}

export interface AdaptorMetrics {
  createSeconds: Histogram<'provider'>;
  operations: Counter<'node' | 'provider' | 'op' | 'result'>;
  /** Adds a node's running-VM count to the gauge; returns the removal. */
  addRunningSource(source: RunningVmSource): () => void;
}

const perRegistry = new WeakMap<Registry, AdaptorMetrics>();

export function adaptorMetrics(registry: Registry): AdaptorMetrics {
  const known = perRegistry.get(registry);
  if (known) return known;
  const registers = [registry];
  const sources = new Set<RunningVmSource>();
  const metrics: AdaptorMetrics = {
    createSeconds: new Histogram({
      name: 'peerpods_adaptor_vm_create_duration_seconds',
      help: 'Time of one provider createInstance call that returned a VM (adoptions included), by provider.',
      labelNames: ['provider'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    operations: new Counter({
      name: 'peerpods_adaptor_vm_operations_total',
      help: 'Pod VM creates and deletes by node, provider and result (ok or failed).',
      labelNames: ['node', 'provider', 'op', 'result'] as const,
      registers,
    }),
    addRunningSource(source) {
      sources.add(source);
      return () => sources.delete(source);
    },
  };
  new Gauge({
    name: 'peerpods_adaptor_vms_running',
    help: 'Pod VMs recorded in live PeerPods of this node (spec.instanceID set, not being deleted).',
    labelNames: ['node', 'provider'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of sources) this.set({ node: s.node, provider: s.provider() }, s.count());
    },
  });
  perRegistry.set(registry, metrics);
  return metrics;
}
