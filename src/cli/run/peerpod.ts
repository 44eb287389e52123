// `peerpods run peerpod-controller`: the PeerPod controller against the current kubeconfig context,
// or in-cluster (service account) when there is none.
import { LEADER_ELECTION_ID, setupPeerPodController } from '../../peerpod/index.ts';
import { operatorManager } from './operator.ts';

export interface RunPeerPodOptions {
  kubeconfig?: string;
  namespace?: string;
  dryRun?: boolean;
  orphanGrace: number;
  sweepInterval: number;
  maxConcurrentDeletes: number;
  maxConcurrentReconciles: number;
  leaderElect?: boolean;
  healthProbeBindAddress: { host: string; port: number } | false;
}

/** Runs until SIGTERM/SIGINT (the manager drains in-flight deletes first). */
export async function runPeerPodController(o: RunPeerPodOptions): Promise<void> {
  const { client, manager, logger, namespace, run } = await operatorManager({
    name: 'peerpod-controller',
    kubeconfig: o.kubeconfig,
    namespace: o.namespace,
    leaderElect: o.leaderElect,
    leaseName: LEADER_ELECTION_ID,
    healthProbeBindAddress: o.healthProbeBindAddress,
  });
  setupPeerPodController(manager, {
    namespace,
    dryRun: o.dryRun ?? false,
    orphanGraceMs: o.orphanGrace,
    sweepIntervalMs: o.sweepInterval,
    maxConcurrentDeletes: o.maxConcurrentDeletes,
    maxConcurrentReconciles: o.maxConcurrentReconciles,
  });
  logger.info(
    { server: client.server, namespace, dryRun: o.dryRun ?? false, leaderElect: o.leaderElect ?? false },
    'starting the PeerPod controller',
  );
  await run();
}
