// The controller's own metrics, registered once per registry (a test or benchmark may build several
// controllers on one registry, and prom-client refuses a second registration of a name).
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export type DeletionResult = 'deleted' | 'failed' | 'skipped';

export interface PeerPodMetrics {
  deletions: Counter<'provider' | 'result' | 'source'>;
  orphansFound: Counter<'provider'>;
  deletionSeconds: Histogram<'provider'>;
  deletesInFlight: Gauge<'provider'>;
}

function getOrCreate<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function peerPodMetrics(registry: Registry): PeerPodMetrics {
  const registers = [registry];
  return {
    deletions: getOrCreate(
      registry,
      'peerpod_instance_deletions_total',
      () =>
        new Counter({
          name: 'peerpod_instance_deletions_total',
          help: 'Pod VM deletions by provider and result (deleted includes already gone); source is finalizer or orphan.',
          labelNames: ['provider', 'result', 'source'] as const,
          registers,
        }),
    ),
    orphansFound: getOrCreate(
      registry,
      'peerpod_orphans_found_total',
      () =>
        new Counter({
          name: 'peerpod_orphans_found_total',
          help: 'Pod VMs of this cluster that no PeerPod names, older than the grace period, by provider.',
          labelNames: ['provider'] as const,
          registers,
        }),
    ),
    deletionSeconds: getOrCreate(
      registry,
      'peerpod_instance_deletion_duration_seconds',
      () =>
        new Histogram({
          name: 'peerpod_instance_deletion_duration_seconds',
          help: 'Time of one provider deleteInstance call (successful or not), excluding the wait for a slot.',
          labelNames: ['provider'] as const,
          buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
          registers,
        }),
    ),
    deletesInFlight: getOrCreate(
      registry,
      'peerpod_instance_deletes_in_flight',
      () =>
        new Gauge({
          name: 'peerpod_instance_deletes_in_flight',
          help: 'Provider deleteInstance calls in flight, by provider.',
          labelNames: ['provider'] as const,
          registers,
        }),
    ),
  };
}
