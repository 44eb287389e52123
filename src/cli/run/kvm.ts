// `peerpods run kvm-operator`: the kvm-operator (cluster, deleter, drainer, unhealthy-node
// terminator and node drainer) against the current kubeconfig context, or in-cluster.
import { KVM_LEADER_ELECTION_ID, setupKvmOperator } from '../../kvm/index.ts';
import { operatorManager } from './operator.ts';

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
