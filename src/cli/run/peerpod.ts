// `peerpods run peerpod-controller`: the PeerPod controller against the current kubeconfig context,
// or in-cluster (service account) when there is none.
import type { Command } from 'commander';
import {
  DEFAULT_MAX_CONCURRENT_DELETES,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  LEADER_ELECTION_ID,
  setupPeerPodController,
} from '../../peerpod/index.ts';
import { operatorManager, runCommand } from './operator.ts';
import { durationOption, healthProbeOption, parsePositiveInt } from '../options.ts';

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

export function registerPeerPodCommands(program: Command): void {
  runCommand(program)
    .command('peerpod-controller')
    .description('delete the VMs of dangling PeerPods, release their finalizers, and sweep orphan VMs')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--namespace <ns>', 'where peer-pods-cm and peer-pods-secret live (default: $PEERPODS_NAMESPACE)')
    .option('--dry-run', 'the orphan sweep only reports (event, log, metric); it deletes nothing')
    .addOption(durationOption('--orphan-grace <duration>', 'age before an unnamed VM counts as an orphan', 600_000))
    .addOption(durationOption('--sweep-interval <duration>', 'orphan sweep interval (0 disables the sweep)', 60_000))
    .option(
      '--max-concurrent-deletes <n>',
      'deletes in flight per provider',
      parsePositiveInt,
      DEFAULT_MAX_CONCURRENT_DELETES,
    )
    .option('--max-concurrent-reconciles <n>', 'workers', parsePositiveInt, DEFAULT_MAX_CONCURRENT_RECONCILES)
    .option('--leader-elect', `elect a leader through the Lease ${LEADER_ELECTION_ID}`)
    .addOption(healthProbeOption('peerpod-controller'))
    .action(runPeerPodController);
}
