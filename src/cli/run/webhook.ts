// `peerpods run webhook`: the peer-pods pod mutator (POST /mutate-v1-pod, HTTPS on :9443) with
// /healthz, /readyz and /metrics on the probe port. It needs no API access: the API server calls it.
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { runCommand } from './operator.ts';
import { Registry } from 'prom-client';
import { QuantityError, parseQuantity } from '../../apimachinery/index.ts';
import { HealthChecks, ProbeServer, createLogger } from '../../runtime/index.ts';
import { webhook } from '../../peerpod/index.ts';
import { healthProbeOption } from '../options.ts';
import { onShutdown } from '../signals.ts';

export interface RunWebhookOptions {
  port: number;
  host: string;
  certDir: string;
  dropResources: webhook.DropMode;
  targetRuntimeClass: string;
  extendedResource: string;
  maxVcpus: number;
  /** MiB (commander names it after --max-memory). */
  maxMemory: number;
  healthProbeBindAddress: { host: string; port: number } | false;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a port number');
  return n;
}

function parseDropMode(value: string): webhook.DropMode {
  if (!(webhook.DROP_MODES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${webhook.DROP_MODES.join(', ')}`);
  }
  return value as webhook.DropMode;
}

function parseMaxVcpus(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

/** A memory quantity ("32Ti", "512Gi") in whole MiB. */
function parseMaxMemory(value: string): number {
  let bytes: bigint;
  try {
    bytes = parseQuantity(value).toBigInt();
  } catch (err) {
    if (err instanceof QuantityError) throw new InvalidArgumentError(err.message);
    throw err;
  }
  const mib = Number(bytes >> 20n);
  if (mib < 1 || !Number.isSafeInteger(mib)) throw new InvalidArgumentError('must be a memory size of at least 1Mi');
  return mib;
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
      maxVcpus: o.maxVcpus,
      maxMemoryMiB: o.maxMemory,
    },
    'starting the peer-pods webhook',
  );
  await Promise.all(runs);
}

export function registerWebhookCommand(program: Command): void {
  runCommand(program)
    .command('webhook')
    .description('the peer-pods pod mutating webhook (runtime class -> kata.peerpods.io/vm + VM size annotations)')
    .option('--port <port>', 'HTTPS port of /mutate-v1-pod', parsePort, 9443)
    .option('--host <addr>', 'address to listen on (0.0.0.0 inside a pod, so the API server reaches it)', '127.0.0.1')
    .option(
      '--cert-dir <dir>',
      'directory with tls.crt and tls.key (reloaded on change)',
      '/tmp/k8s-webhook-server/serving-certs',
    )
    .option(
      '--drop-resources <mode>',
      'upstream: clear every container resource; preserve: keep ephemeral-storage and extended resources, deny hugepages',
      parseDropMode,
      'upstream' as webhook.DropMode,
    )
    .option(
      '--target-runtime-class <name>',
      'runtime class to mutate (env TARGET_RUNTIMECLASS)',
      process.env.TARGET_RUNTIMECLASS || webhook.DEFAULT_RUNTIME_CLASS,
    )
    .option(
      '--extended-resource <name>',
      'node resource one pod VM takes (env POD_VM_EXTENDED_RESOURCE)',
      process.env.POD_VM_EXTENDED_RESOURCE || webhook.DEFAULT_EXTENDED_RESOURCE,
    )
    .option(
      '--max-vcpus <n>',
      'the largest VM a pod may ask for, in vCPUs (summed cpu of its containers); larger pods are denied',
      parseMaxVcpus,
      webhook.DEFAULT_MAX_VCPUS,
    )
    .addOption(
      new Option(
        '--max-memory <quantity>',
        'the largest VM memory a pod may ask for (e.g. 512Gi); larger pods are denied',
      )
        .argParser(parseMaxMemory)
        .default(webhook.DEFAULT_MAX_MEMORY_MIB, '32Ti'),
    )
    .addOption(healthProbeOption('webhook'))
    .action(runWebhook);
}
