// The kvm-operator end to end: a management cluster (embedded control plane, 4 simulated nodes:
// node-1 hosts masters, node-2..4 workers), a workload cluster (a second embedded control plane
// whose nodes are registered by simulated VMs named after the node pods), the operator with every
// controller, and the VM simulator — all on real HTTPS and watch streams. The operator runs as its
// ServiceAccount with the RBAC `peerpods manifests` generates (config/rbac/), so a rule it lacks
// fails these tests with a 403; the simulator, which plays the VMs, keeps the admin's client.
import { Registry } from 'prom-client';
import { KubeClient, Manager, Namespaces, Nodes, Pods, Secrets, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { KVMConfigs, Labels, POD_WATCHER, VmSimulator, setupKvmOperator } from '../../../src/kvm/index.ts';
import type { KVMConfig, KvmOperator, Pod } from '../../../src/kvm/index.ts';
import { startTestCluster } from '../../helpers/control-plane.ts';
import { installGeneratedRbac, kubeconfigAs } from '../../helpers/generated-rbac.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import {
  OPERATOR_VERSION,
  clientOf,
  createKvmConfig,
  installKvmCrds,
  sampleKvmConfig,
  sampleRelease,
} from '../../helpers/kvm.ts';

export const CLUSTER_ID = 'abc12';
const OPERATOR_NAMESPACE = 'peerpods-system';

export interface KvmEnv {
  mc: TestCluster;
  wc: TestCluster;
  mcClient: KubeClient;
  wcClient: KubeClient;
  operator: KvmOperator;
  /** Moves the operator's clock (the unhealthy-node terminator and drain timeouts) forward. */
  advanceClock(ms: number): void;
  kvmConfig(): Promise<KVMConfig>;
  /** Node pods of the cluster that are not being deleted. */
  nodePods(): Promise<Pod[]>;
  allNodePods(): Promise<Pod[]>;
  wcNodes(): Promise<KubeObject[]>;
  stop(): Promise<void>;
}

export async function startKvmEnv(opts: { masters?: number; workers?: number } = {}): Promise<KvmEnv> {
  const mc = await startTestCluster({ nodes: 4 });
  const wc = await startTestCluster({ nodes: 0 });
  const mcClient = clientOf(mc);
  const wcClient = clientOf(wc);
  for (const [name, role] of [
    ['node-1', 'master'],
    ['node-2', 'worker'],
    ['node-3', 'worker'],
    ['node-4', 'worker'],
  ]) {
    await mcClient.patch(Nodes, name, undefined, { metadata: { labels: { [Labels.role]: role } } }, 'merge');
  }
  await installKvmCrds(mcClient);
  await mcClient.create(Namespaces, { metadata: { name: OPERATOR_NAMESPACE } });
  const operatorUser = await installGeneratedRbac(mcClient, 'kvm-operator');
  // The workload cluster's credentials, as a kubeconfig Secret: the operator builds its client from it.
  await mcClient.create(Secrets, {
    metadata: { name: `${CLUSTER_ID}-kubeconfig`, namespace: 'default', labels: { [Labels.cluster]: CLUSTER_ID } },
    data: { kubeconfig: Buffer.from(wc.kubeconfig).toString('base64') },
  });
  let offset = 0;
  const registry = new Registry();
  const opClient = KubeClient.fromKubeconfigString(kubeconfigAs(mc.kubeconfig, operatorUser), {
    metricsRegistry: registry,
    logger: silentLogger(),
  });
  const manager = new Manager({
    client: opClient,
    logger: silentLogger(),
    metricsRegistry: registry,
    server: false,
    handleSignals: false,
    gracefulShutdownTimeoutMs: 2000,
  });
  const operator = setupKvmOperator(manager, {
    version: OPERATOR_VERSION,
    recheckMs: 300,
    resyncMs: 3000,
    deleterResyncMs: 1000,
    now: () => Date.now() + offset,
  });
  const simClient = KubeClient.fromKubeconfigString(mc.kubeconfig, {
    metricsRegistry: null,
    logger: silentLogger(),
  });
  const simManager = new Manager({
    client: simClient,
    logger: silentLogger(),
    metricsRegistry: new Registry(),
    server: false,
    handleSignals: false,
    gracefulShutdownTimeoutMs: 2000,
  });
  VmSimulator.setup(simManager, {
    operatorVersion: OPERATOR_VERSION,
    workloadClient: (id) => (id === CLUSTER_ID ? wcClient : undefined),
  });
  const running = manager.start();
  const simRunning = simManager.start();
  await manager.elected();
  await simManager.elected();
  await createKvmConfig(
    mcClient,
    sampleKvmConfig({ id: CLUSTER_ID, masters: opts.masters ?? 1, workers: opts.workers ?? 2 }),
    [sampleRelease()],
  );
  const podSelector = `${Labels.podWatcher}=${POD_WATCHER},${Labels.cluster}=${CLUSTER_ID}`;
  const allNodePods = async () =>
    (await mcClient.list<Pod>(Pods, { namespace: CLUSTER_ID, labelSelector: podSelector })).items;
  return {
    mc,
    wc,
    mcClient,
    wcClient,
    operator,
    advanceClock: (ms) => void (offset += ms),
    kvmConfig: () => mcClient.get<KVMConfig>(KVMConfigs, CLUSTER_ID, 'default'),
    allNodePods,
    nodePods: async () => (await allNodePods()).filter((p) => !p.metadata.deletionTimestamp),
    wcNodes: async () => (await wcClient.list(Nodes)).items,
    async stop() {
      await manager.stop();
      await simManager.stop();
      await Promise.all([running, simRunning]);
      opClient.close();
      simClient.close();
      mcClient.close();
      wcClient.close();
      await wc.stop();
      await mc.stop();
    },
  };
}
