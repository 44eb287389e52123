// `peerpods run kvm-operator`: the kvm-operator (cluster, deleter, drainer, unhealthy-node
// terminator and node drainer) against the current kubeconfig context, or in-cluster.
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { KVM_DEFAULTS, KVM_LEADER_ELECTION_ID, setupKvmOperator } from '../../kvm/index.ts';
import { operatorManager, runCommand } from './operator.ts';
import { durationOption, healthProbeOption, parseDurationFlag } from '../options.ts';

export interface RunKvmOperatorOptions {
  kubeconfig?: string;
  namespace?: string;
  operatorVersion: string;
  kvmConfigNamespace: string;
  clusterRoleGeneral: string;
  clusterRolePsp: string;
  dnsServers: string[];
  ntpServers: string[];
  terminateUnhealthyNodes?: boolean;
  unhealthyNodeAfter: number;
  drainTimeout: number;
  resync: number;
  nodeDrainer: boolean;
  leaderElect?: boolean;
  healthProbeBindAddress: { host: string; port: number } | false;
}

function parseList(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError('must be a comma-separated list');
  return items;
}

function positiveDuration(value: string): number {
  const ms = parseDurationFlag(value);
  if (ms <= 0) throw new InvalidArgumentError('must be a positive duration');
  return ms;
}

export async function runKvmOperator(o: RunKvmOperatorOptions): Promise<void> {
  const { client, manager, logger, run } = await operatorManager({
    name: 'kvm-operator',
    kubeconfig: o.kubeconfig,
    namespace: o.namespace,
    leaderElect: o.leaderElect,
    leaseName: KVM_LEADER_ELECTION_ID,
    healthProbeBindAddress: o.healthProbeBindAddress,
  });
  setupKvmOperator(manager, {
    version: o.operatorVersion,
    kvmConfigNamespace: o.kvmConfigNamespace,
    clusterRoleGeneral: o.clusterRoleGeneral,
    clusterRolePsp: o.clusterRolePsp,
    dnsServers: o.dnsServers,
    ntpServers: o.ntpServers,
    terminateUnhealthyNodes: o.terminateUnhealthyNodes ?? false,
    unhealthyNodeAfterMs: o.unhealthyNodeAfter,
    drainTimeoutMs: o.drainTimeout,
    resyncMs: o.resync,
    nodeDrainer: o.nodeDrainer,
  });
  logger.info(
    { server: client.server, version: o.operatorVersion, kvmConfigNamespace: o.kvmConfigNamespace },
    'starting the kvm-operator',
  );
  await run();
}

export function registerKvmCommand(program: Command): void {
  runCommand(program)
    .command('kvm-operator')
    .description('run workload clusters whose nodes are KVM VMs in pods (KVMConfig, Release, DrainerConfig)')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--namespace <ns>', 'namespace of the leader-election Lease (default: $PEERPODS_NAMESPACE)')
    .option(
      '--operator-version <semver>',
      'handle KVMConfigs labelled kvm-operator.giantswarm.io/version=<semver>',
      KVM_DEFAULTS.version,
    )
    .option('--kvmconfig-namespace <ns>', 'where KVMConfigs live', KVM_DEFAULTS.kvmConfigNamespace)
    .option('--cluster-role-general <name>', 'ClusterRole bound to each cluster', KVM_DEFAULTS.clusterRoleGeneral)
    .option('--cluster-role-psp <name>', 'ClusterRole bound for pod security', KVM_DEFAULTS.clusterRolePsp)
    .option('--dns-servers <list>', 'DNS servers of the VMs', parseList, KVM_DEFAULTS.dnsServers)
    .option('--ntp-servers <list>', 'NTP servers of the VMs', parseList, KVM_DEFAULTS.ntpServers)
    .option('--terminate-unhealthy-nodes', 'replace unhealthy nodes of every cluster, not only annotated ones')
    .addOption(
      durationOption(
        '--unhealthy-node-after <duration>',
        'NotReady time before a node is replaced',
        KVM_DEFAULTS.unhealthyNodeAfterMs,
        positiveDuration,
      ),
    )
    .addOption(
      durationOption(
        '--drain-timeout <duration>',
        'time a drain may take',
        KVM_DEFAULTS.drainTimeoutMs,
        positiveDuration,
      ),
    )
    .addOption(
      durationOption(
        '--resync <duration>',
        'resync period of the controllers',
        KVM_DEFAULTS.resyncMs,
        positiveDuration,
      ),
    )
    .option('--no-node-drainer', 'do not execute DrainerConfigs (another node-operator does)')
    .option('--leader-elect', `elect a leader through the Lease ${KVM_LEADER_ELECTION_ID}`)
    .addOption(healthProbeOption('kvm-operator'))
    .action(runKvmOperator);
}
