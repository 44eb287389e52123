// The controller's own metrics (the runtime already counts reconciles and their errors).
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface PeerPodConfigMetrics {
  /** Failures by stage: capacity, adaptor, webhook, certificate, cleanup. */
  errors: Counter<'stage'>;
  /** kata.peerpods.io/vm advertised per node. */
  advertised: Gauge<'node' | 'resource'>;
  certRotations: Counter<'kind'>;
}

function getOrCreate<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function peerPodConfigMetrics(registry: Registry): PeerPodConfigMetrics {
  const registers = [registry];
  return {
    errors: getOrCreate(
      registry,
      'peerpodconfig_errors_total',
      () =>
        new Counter({
          name: 'peerpodconfig_errors_total',
          help: 'PeerPodConfig reconcile failures by stage (capacity, adaptor, webhook, certificate, cleanup).',
          labelNames: ['stage'] as const,
          registers,
        }),
    ),
    advertised: getOrCreate(
      registry,
      'peerpodconfig_node_vms',
      () =>
        new Gauge({
          name: 'peerpodconfig_node_vms',
          help: 'Pod VMs advertised as the extended resource on each node, per resource (one per provider).',
          labelNames: ['node', 'resource'] as const,
          registers,
        }),
    ),
    certRotations: getOrCreate(
      registry,
      'peerpodconfig_webhook_certificates_issued_total',
      () =>
        new Counter({
          name: 'peerpodconfig_webhook_certificates_issued_total',
          help: 'Webhook certificates issued, by kind (ca, serving).',
          labelNames: ['kind'] as const,
          registers,
        }),
    ),
  };
}
