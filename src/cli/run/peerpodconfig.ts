// `peerpods run peerpodconfig-controller`: the PeerPodConfig controller (node VM capacity, the
// adaptor DaemonSet, the webhook Deployment/Service/certificate/MutatingWebhookConfiguration)
// against the current kubeconfig context, or in-cluster, for the PeerPodConfigs of its namespace.
import { setupPeerPodConfigController } from '../../peerpod/index.ts';
import { operatorManager } from './operator.ts';
import { PEERPODCONFIG_LEADER_ELECTION_ID } from '../options.ts';

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
