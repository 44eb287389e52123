// The kvm-operator on one machine: a management cluster and a workload cluster (two embedded
// control planes), the operator with all its controllers, and simulated VMs that register workload
// nodes named after the node pods. It creates the sample KVMConfig (1 master, 2 workers), waits
// until the cluster is Created, and prints where to look.
//   node --import tsx examples/kvm/main.ts          keeps running until Ctrl-C, then tears down
//   node --import tsx examples/kvm/main.ts --once   tears the cluster down and exits (0 when all held)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../../src/kube/index.ts';
import {
  CustomResourceDefinitions,
  KubeClient,
  Manager,
  Nodes,
  Secrets,
  createLogger,
  isNotFound,
  serverSideApply,
} from '../../src/runtime/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import {
  KVMConfigs,
  KVM_DEFAULTS,
  Labels,
  Releases,
  VmSimulator,
  kvmCrds,
  kvmSamples,
  setupKvmOperator,
} from '../../src/kvm/index.ts';
import type { KVMConfig } from '../../src/kvm/index.ts';

const once = process.argv.includes('--once');
const log = createLogger('kvm-example');
const dir = mkdtempSync(join(tmpdir(), 'peerpods-kvm-example-'));

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// 1. Two clusters. Management nodes say which role's VMs they host (the node deployments' nodeSelector).
const mc = await startControlPlane({ nodes: 3, kubeconfigPath: join(dir, 'management.kubeconfig') });
const wc = await startControlPlane({ nodes: 0, kubeconfigPath: join(dir, 'workload.kubeconfig') });
const client = KubeClient.fromKubeconfigString(mc.kubeconfig, { logger: log.child({ component: 'kube-client' }) });
const wcClient = KubeClient.fromKubeconfigString(wc.kubeconfig, { metricsRegistry: null });
for (const [node, role] of [
  ['node-1', 'master'],
  ['node-2', 'worker'],
  ['node-3', 'worker'],
]) {
  await client.patch(Nodes, node, undefined, { metadata: { labels: { [Labels.role]: role } } }, 'merge');
}

// 2. CRDs, the sample Release, and the workload cluster's credentials as a kubeconfig Secret.
for (const crd of kvmCrds())
  await serverSideApply(client, CustomResourceDefinitions, crd, { fieldManager: 'kvm-example' });
await until('CRDs served', 10_000, async () => {
  await client.list(KVMConfigs, { namespace: 'default' });
  return true;
});
const samples = kvmSamples();
const release = samples.find((o) => o.kind === 'Release') as KubeObject;
const sample = samples.find((o) => o.kind === 'KVMConfig') as KVMConfig;
await serverSideApply(client, Releases, release, { fieldManager: 'kvm-example' });
const id = sample.spec.cluster.id;
await serverSideApply(
  client,
  Secrets,
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${id}-kubeconfig`, namespace: 'default', labels: { [Labels.cluster]: id } },
    stringData: { kubeconfig: wc.kubeconfig },
  },
  { fieldManager: 'kvm-example' },
);

// 3. The operator and the simulated VMs.
const manager = new Manager({ client, logger: log, server: { host: '127.0.0.1', port: 0 }, handleSignals: false });
setupKvmOperator(manager, { recheckMs: 1000, deleterResyncMs: 10_000 });
VmSimulator.setup(manager, {
  operatorVersion: KVM_DEFAULTS.version,
  workloadClient: (cluster) => (cluster === id ? wcClient : undefined),
});
const running = manager.start();
const { port } = await manager.serverAddress();

// 4. The workload cluster.
await client.create(KVMConfigs, sample);
log.info(`created KVMConfig default/${id} (1 master, 2 workers)`);
await until('the cluster to be Created', 120_000, async () => {
  const c = await client.get<KVMConfig>(KVMConfigs, id, 'default');
  return c.status?.cluster?.conditions?.at(-1)?.type === 'Created';
});
const nodes = (await wcClient.list(Nodes)).items.map((n) => n.metadata.name);
log.info({ workloadNodes: nodes }, 'cluster Created: every node pod runs a VM whose node joined the workload cluster');
const summary = [
  `management cluster: kubectl --kubeconfig ${join(dir, 'management.kubeconfig')} get kvmconfigs,deployments,pods,endpoints -A`,
  `workload cluster:   kubectl --kubeconfig ${join(dir, 'workload.kubeconfig')} get nodes -L role`,
  `operator metrics:   curl http://127.0.0.1:${port}/metrics`,
];
writeFileSync(join(dir, 'README.txt'), summary.join('\n') + '\n');
for (const line of summary) console.log(line);

// 5. Tear down: Ctrl-C (or --once) deletes the KVMConfig and waits for every finalizer.
async function teardown(): Promise<void> {
  await client.delete(KVMConfigs, id, 'default');
  await until('the KVMConfig to be gone', 120_000, async () => {
    try {
      await client.get(KVMConfigs, id, 'default');
      return false;
    } catch (e) {
      return isNotFound(e);
    }
  });
  log.info('KVMConfig deleted; every object and finalizer released');
  await manager.stop();
  await running;
  client.close();
  wcClient.close();
  await wc.stop();
  await mc.stop();
}

if (once) {
  await teardown();
} else {
  console.log('Ctrl-C tears the cluster down.');
  process.once('SIGINT', () => void teardown().then(() => process.exit(0)));
}
