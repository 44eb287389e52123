// The adaptor's metrics, registered once per registry: the main job runs one adaptor per node on
// one registry, and prom-client refuses a second registration of a name. The running-VM gauge is
// computed from the caches at scrape time (never counted up and down), so it cannot drift.
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export type VmOperation = 'create' | 'delete';

/** How the pod got its VM: `cold` (made for the pod) or `claim` (a warm pool's spare, pool/claim.ts). */
export type StartKind = 'cold' | 'claim';

/** Pod start phases: VMs take seconds (simulated, qemu) to minutes (clouds); the API's timestamps are whole seconds. */
export const START_BUCKETS = [0.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300, 600, 900];
/** Pod deletion requested → VM deleted: seconds, up to the minutes some clouds take (CAA#1737: ~4 min). */
export const DELETE_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 240, 600];

export interface RunningVmSource {
  node: string;
  provider(): string;
  count(): number;
}

export interface AdaptorMetrics {
  createSeconds: Histogram<'provider'>;
  operations: Counter<'node' | 'provider' | 'op' | 'result'>;
  podCreatedToVmCreated: Histogram<'provider' | 'start'>;
  vmCreatedToPodRunning: Histogram<'provider' | 'start'>;
  podCreatedToRunning: Histogram<'provider' | 'start'>;
  podDeletionToVmDeleted: Histogram<'provider'>;
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
    podCreatedToVmCreated: new Histogram({
      name: 'peerpods_adaptor_pod_created_to_vm_created_seconds',
      help: "From the pod's creationTimestamp to its VM's creation time as the provider records it, by provider and start (cold).",
      labelNames: ['provider', 'start'] as const,
      buckets: START_BUCKETS,
      registers,
    }),
    vmCreatedToPodRunning: new Histogram({
      name: 'peerpods_adaptor_vm_created_to_pod_running_seconds',
      help: "From the VM's creation time to the pod's Ready transition the adaptor wrote, by provider and start (cold).",
      labelNames: ['provider', 'start'] as const,
      buckets: START_BUCKETS,
      registers,
    }),
    podCreatedToRunning: new Histogram({
      name: 'peerpods_adaptor_pod_created_to_running_seconds',
      help: "From the pod's creationTimestamp to its Ready transition the adaptor wrote, by provider and start (cold).",
      labelNames: ['provider', 'start'] as const,
      buckets: START_BUCKETS,
      registers,
    }),
    podDeletionToVmDeleted: new Histogram({
      name: 'peerpods_adaptor_pod_deletion_to_vm_deleted_seconds',
      help: "From the pod's deletion request to its VM deleted and its PeerPod released, by provider.",
      labelNames: ['provider'] as const,
      buckets: DELETE_BUCKETS,
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
