// `peerpods run webhook`: the peer-pods pod mutator (POST /mutate-v1-pod, HTTPS on :9443) with
// /healthz, /readyz and /metrics on the probe port. It needs no API access: the API server calls it.
import { Registry } from 'prom-client';
import { HealthChecks, ProbeServer, createLogger } from '../../runtime/index.ts';
import { webhook } from '../../peerpod/index.ts';
import { onShutdown } from '../signals.ts';

export interface RunWebhookOptions {
  port: number;
  host: string;
  certDir: string;
  dropResources: webhook.DropMode;
  targetRuntimeClass: string;
  extendedResource: string;
  /** RuntimeClass → resource of the other providers (`--runtime-class-resource`, repeatable). */
  runtimeClassResource: Record<string, string>;
  maxVcpus: number;
  /** MiB (commander names it after --max-memory). */
  maxMemory: number;
  healthProbeBindAddress: { host: string; port: number } | false;
}

export async function runWebhook(o: RunWebhookOptions): Promise<void> {
  const logger = createLogger('peer-pods-webhook');
  const registry = new Registry();
  const server = webhook.podWebhookServer({
    port: o.port,
    host: o.host,
    certDir: o.certDir,
    dropResources: o.dropResources,
    targetRuntimeClass: o.targetRuntimeClass,
    extendedResource: o.extendedResource,
    runtimeClassResources: o.runtimeClassResource,
    maxVcpus: o.maxVcpus,
    maxMemoryMiB: o.maxMemory,
    logger,
    metricsRegistry: registry,
  });
  const abort = new AbortController();
  const runs: Promise<void>[] = [server.start(abort.signal)];
  if (o.healthProbeBindAddress) {
    const health = new HealthChecks();
    health.add('ping', () => true);
    const ready = new HealthChecks();
    ready.add('webhook', server.startedChecker());
    const probe = new ProbeServer({ ...o.healthProbeBindAddress, registry, health, ready, logger });
    runs.push(probe.start(abort.signal));
  }
  onShutdown(async () => {
    abort.abort();
    await Promise.allSettled(runs);
  });
  logger.info(
    {
      port: o.port,
      certDir: o.certDir,
      dropResources: o.dropResources,
      runtimeClass: o.targetRuntimeClass,
      runtimeClassResources: o.runtimeClassResource,
      maxVcpus: o.maxVcpus,
      maxMemoryMiB: o.maxMemory,
    },
    'starting the peer-pods webhook',
  );
  await Promise.all(runs);
}
