// `peerpods run adaptor --node NAME`: the node-side VM adaptor for one node, against the current
// kubeconfig context or in-cluster. Against a real cluster the kata shim's RuntimeClass hands the
// pods to it. Against the embedded control plane the simulated kubelets must be told to leave the
// runtime class alone: that needs the control plane's process (see the adaptor's
// `startEmbeddedAdaptors`, for the code that starts both).
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { runCommand } from './operator.ts';
import { createLogger } from '../../runtime/index.ts';
import { adaptor as peerPodAdaptor, providers } from '../../peerpod/index.ts';
import { healthProbeOption, parsePositiveInt } from '../options.ts';

export interface RunAdaptorOptions {
  node?: string;
  provider?: string;
  providerConfig: Record<string, string>;
  kubeconfig?: string;
  runtimeClass: string;
  namespace?: string;
  maxConcurrentReconciles: number;
  healthProbeBindAddress: { host: string; port: number } | false;
}

/** Runs until SIGTERM/SIGINT; in-flight VM creates get the graceful shutdown period to finish. */
export async function runAdaptor(o: RunAdaptorOptions): Promise<void> {
  const nodeName = o.node || process.env.NODE_NAME;
  if (!nodeName) throw new Error('--node (or $NODE_NAME) is required: the node whose pods this adaptor runs');
  if (o.provider) parseProvider(o.provider);
  const logger = createLogger('peerpod-adaptor');
  const adaptor = await peerPodAdaptor.startAdaptor({
    nodeName,
    runtimeClassName: o.runtimeClass,
    ...(o.provider ? { providerName: o.provider } : {}),
    providerConfig: o.providerConfig,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    logger,
    manager: { server: o.healthProbeBindAddress },
  });
  logger.info(
    {
      node: nodeName,
      runtimeClass: adaptor.options.runtimeClassName,
      provider:
        adaptor.providers.name() || `(CLOUD_PROVIDER in ${adaptor.options.namespace}/${adaptor.options.configMapName})`,
    },
    'starting the peer-pod adaptor',
  );
  await adaptor.done;
}

/** An adaptor started with a provider it cannot build would idle forever: refuse it at start. */
function parseProvider(value: string): string {
  if (providers.isKnownProvider(value)) return value;
  throw new InvalidArgumentError(
    `unknown cloud provider ${JSON.stringify(value)}; known providers: ${providers.KNOWN_PROVIDERS.join(', ')}`,
  );
}

function parseKeyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('must be KEY=VALUE, e.g. QEMU_STATE_DIR=/var/lib/peerpods/qemu');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

export function registerAdaptorCommand(program: Command): void {
  runCommand(program)
    .command('adaptor')
    .description("create and delete the VMs of the peer pods bound to one node (the node's cloud-api-adaptor)")
    .option('--node <name>', 'the node whose pods to run (default: $NODE_NAME)')
    .option(
      '--provider <name>',
      `cloud provider (${providers.KNOWN_PROVIDERS.join('|')}; default: CLOUD_PROVIDER from the peer-pods-cm ConfigMap)`,
      parseProvider,
    )
    .option(
      '--provider-config <KEY=VALUE>',
      'a provider setting that wins over peer-pods-cm / peer-pods-secret (repeatable)',
      parseKeyValue,
      {},
    )
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--runtime-class <name>', 'runtime class of the pods to run in VMs', peerPodAdaptor.DEFAULT_RUNTIME_CLASS)
    .option('--namespace <ns>', 'where peer-pods-cm and peer-pods-secret live (default: $PEERPODS_NAMESPACE)')
    .option(
      '--max-concurrent-reconciles <n>',
      'pods handled at once (VM creates in flight)',
      parsePositiveInt,
      peerPodAdaptor.DEFAULT_MAX_CONCURRENT_RECONCILES,
    )
    .addOption(healthProbeOption('adaptor'))
    .action(runAdaptor);
}
