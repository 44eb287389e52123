// `peerpods run peerpodconfig-controller`: the PeerPodConfig controller (node VM capacity, the
// adaptor DaemonSet, the webhook Deployment/Service/certificate/MutatingWebhookConfiguration)
// against the current kubeconfig context, or in-cluster, for the PeerPodConfigs of its namespace.
import { Option } from 'commander';
import type { Command } from 'commander';
import {
  DEFAULT_ADAPTOR_IMAGE,
  DEFAULT_CAPACITY_RECHECK_MS,
  DEFAULT_WEBHOOK_IMAGE,
  setupPeerPodConfigController,
  webhook,
} from '../../peerpod/index.ts';
import { operatorManager, runCommand } from './operator.ts';
import { durationOption, healthProbeOption, parsePositiveInt } from '../options.ts';

/** Its own Lease: it may run beside the PeerPod controller, which holds upstream's ID. */
export const PEERPODCONFIG_LEADER_ELECTION_ID = 'peerpodconfig.confidentialcontainers.org';

export interface RunPeerPodConfigOptions {
  kubeconfig?: string;
  namespace?: string;
  extendedResource: string;
  adaptorImage: string;
  deployAdaptor: boolean;
  webhook: boolean;
  webhookImage: string;
  maxConcurrentReconciles: number;
  capacity: boolean;
  capacityRecheckInterval: number;
  leaderElect?: boolean;
  healthProbeBindAddress: { host: string; port: number } | false;
}

/** Runs until SIGTERM/SIGINT. */
export async function runPeerPodConfigController(o: RunPeerPodConfigOptions): Promise<void> {
  const { client, manager, logger, namespace, run } = await operatorManager({
    name: 'peerpodconfig-controller',
    kubeconfig: o.kubeconfig,
    namespace: o.namespace,
    leaderElect: o.leaderElect,
    leaseName: PEERPODCONFIG_LEADER_ELECTION_ID,
    healthProbeBindAddress: o.healthProbeBindAddress,
  });
  setupPeerPodConfigController(manager, {
    // Its Role covers only its own namespace: PeerPodConfigs elsewhere are not its to honour.
    namespace,
    extendedResource: o.extendedResource,
    adaptorImage: o.adaptorImage,
    deployAdaptor: o.deployAdaptor,
    webhook: o.webhook ? { image: o.webhookImage } : false,
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    capacity: o.capacity ? { recheckMs: o.capacityRecheckInterval } : false,
  });
  logger.info(
    { server: client.server, namespace, webhook: o.webhook, deployAdaptor: o.deployAdaptor },
    'starting the PeerPodConfig controller',
  );
  await run();
}

export function registerPeerPodConfigCommand(program: Command): void {
  runCommand(program)
    .command('peerpodconfig-controller')
    .description('advertise pod VM capacity on nodes; deploy the adaptor DaemonSet and the pod webhook')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option(
      '--namespace <ns>',
      'the only namespace whose PeerPodConfigs it honours, and of its Lease (default: $PEERPODS_NAMESPACE)',
    )
    .option('--extended-resource <name>', 'node resource one pod VM takes', webhook.DEFAULT_EXTENDED_RESOURCE)
    .addOption(
      new Option('--adaptor-image <ref>', 'adaptor image').default(
        process.env.RELATED_IMAGE_CAA || DEFAULT_ADAPTOR_IMAGE,
        `$RELATED_IMAGE_CAA, else ${DEFAULT_ADAPTOR_IMAGE}`,
      ),
    )
    .option('--no-deploy-adaptor', 'do not deploy the adaptor DaemonSet')
    .option('--no-webhook', 'do not deploy the webhook (someone else does, e.g. a Helm chart)')
    .option('--webhook-image <ref>', 'image running `peerpods run webhook`', DEFAULT_WEBHOOK_IMAGE)
    .option('--max-concurrent-reconciles <n>', 'workers', parsePositiveInt, 1)
    .option('--no-capacity', "advertise the configured limit without asking what the provider's host or quota holds")
    .addOption(
      durationOption(
        '--capacity-recheck-interval <duration>',
        "how often the provider's capacity is asked again",
        DEFAULT_CAPACITY_RECHECK_MS,
      ),
    )
    .option('--leader-elect', `elect a leader through the Lease ${PEERPODCONFIG_LEADER_ELECTION_ID}`)
    .addOption(healthProbeOption('peerpodconfig-controller'))
    .action(runPeerPodConfigController);
}
