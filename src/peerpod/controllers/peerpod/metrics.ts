// The controller's own metrics, registered once per registry (a test or benchmark may build several
// controllers on one registry, and prom-client refuses a second registration of a name).
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { PeerPod } from '../../api/index.ts';

export type DeletionResult = 'deleted' | 'failed' | 'skipped';

export interface PeerPodMetrics {
  deletions: Counter<'provider' | 'result' | 'source'>;
  orphansFound: Counter<'provider'>;
  deletionSeconds: Histogram<'provider'>;
  deletesInFlight: Gauge<'provider'>;
  deletionToReleased: Histogram<'provider'>;
}

/** PeerPod deletion → instance deleted: seconds, up to the minutes some clouds take (CAA#1737: ~4 min). */
export const RELEASE_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 240, 600];

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
    deletionToReleased: getOrCreate(
      registry,
      'peerpod_deletion_to_instance_deleted_seconds',
      () =>
        new Histogram({
          name: 'peerpod_deletion_to_instance_deleted_seconds',
          help: "From a PeerPod's deletionTimestamp to its instance deleted and its finalizer released by this controller, by provider.",
          labelNames: ['provider'] as const,
          buckets: RELEASE_BUCKETS,
          registers,
        }),
    ),
  };
}

/**
 * Observed once, after the finalizer release that ends the deletion: a restarted controller finds the
 * PeerPod released and does not see it again. Measured from the deletionTimestamp (kept by the API,
 * whole seconds), so a delete that spans a restart counts its downtime.
 */
export function observeReleased(metrics: PeerPodMetrics, provider: string, pp: PeerPod): void {
  const deletion = Date.parse(pp.metadata.deletionTimestamp ?? '');
  if (Number.isNaN(deletion)) return;
  metrics.deletionToReleased.observe({ provider }, Math.max(0, (Date.now() - deletion) / 1000));
}
