// Fixtures of the node handler tests (config maps, deployments, PVCs): a management cluster whose
// simulated nodes host node pods (labelled role=master/worker), a workload cluster with one master
// node, and a KVMConfig prepared as the earlier handlers would leave it (namespace, service
// account, node indexes).
import { Deployments, Namespaces, Nodes, Pods, ServiceAccounts } from '../../../../src/runtime/index.ts';
import type { DeleteOptions, KubeClient, KubeObject, ResourceType } from '../../../../src/runtime/index.ts';
import type { KVMConfig } from '../../../../src/kvm/api/index.ts';
import type { Deployment } from '../../../../src/kvm/handlers/cluster/deployment-types.ts';
import { isRolledOut } from '../../../../src/kvm/handlers/cluster/update-throttle.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { clientOf, createKvmConfig, installKvmCrds, sampleKvmConfig, sampleRelease } from '../../helpers.ts';

export interface NodeTestEnv {
  mc: TestCluster;
  wc: TestCluster;
  client: KubeClient;
  wcClient: KubeClient;
  /** The workload cluster's master node. */
  wcMaster: string;
  stop(): Promise<void>;
}

/** `hostRoles`: the role label of each simulated management-cluster node, e.g. master, worker, worker. */
export async function startNodeTestEnv(hostRoles: string[] = ['master', 'worker', 'worker']): Promise<NodeTestEnv> {
  const [mc, wc] = await Promise.all([
    startTestCluster({
      nodes: hostRoles.length,
      simulatedNodes: { capacity: { cpu: '32', memory: '128Gi', pods: '110' } },
    }),
    startTestCluster({ nodes: 1 }),
  ]);
  const client = clientOf(mc);
  const wcClient = clientOf(wc);
  await installKvmCrds(client);
  const hosts = (await client.list(Nodes)).items.map((n) => n.metadata.name as string).sort();
  for (const [i, name] of hosts.entries()) {
    await client.patch(Nodes, name, undefined, { metadata: { labels: { role: hostRoles[i] } } }, 'merge');
  }
  const wcMaster = (await wcClient.list(Nodes)).items[0].metadata.name as string;
  await wcClient.patch(Nodes, wcMaster, undefined, { metadata: { labels: { role: 'master' } } }, 'merge');
  return {
    mc,
    wc,
    client,
    wcClient,
    wcMaster,
    async stop() {
      client.close();
      wcClient.close();
      await Promise.all([mc.stop(), wc.stop()]);
    },
  };
}

/**
 * Creates the KVMConfig (and its Releases), its namespace and service account, and returns it with
 * node indexes 1.. in its status, as the nodeindexstatus handler would have set them.
 */
export async function prepareCluster(
  client: KubeClient,
  c: KVMConfig = sampleKvmConfig(),
  releases = [sampleRelease(), sampleRelease('14.2.0', '1.20.1')],
): Promise<KVMConfig> {
  const created = await createKvmConfig(client, c, releases);
  const id = c.spec.cluster.id;
  await client.create(Namespaces, { metadata: { name: id } });
  await client.create(ServiceAccounts, { metadata: { name: id, namespace: id } });
  return withIndexes(created);
}

/** Gives every node without one the next free index (the nodeindexstatus handler's job). */
export function withIndexes(c: KVMConfig): KVMConfig {
  const indexes = { ...c.status?.kvm?.nodeIndexes };
  let next = Math.max(0, ...Object.values(indexes)) + 1;
  for (const n of [...(c.spec.cluster.masters ?? []), ...(c.spec.cluster.workers ?? [])])
    if (indexes[n.id] === undefined) indexes[n.id] = next++;
  return { ...c, status: { ...c.status, kvm: { nodeIndexes: indexes } } };
}

export async function deploymentsIn(client: KubeClient, namespace: string): Promise<Deployment[]> {
  return (await client.list<Deployment>(Deployments, { namespace })).items;
}

/**
 * Waits until every deployment in the namespace is rolled out. Node pods have a preStop hook and a
 * 300 s grace period, so a terminating pod is force-deleted here, as the drainer does once its node
 * is drained. Without a Deployment controller serving the test cluster, the status is
 * written as a controller would once it exists (a deployment nobody observed for 3 s).
 */
export async function waitRolledOut(client: KubeClient, namespace: string): Promise<void> {
  const firstSeen = new Map<string, number>();
  await eventually(
    async () => {
      const deployments = await deploymentsIn(client, namespace);
      for (const d of deployments) {
        const name = d.metadata.name as string;
        if (d.status?.observedGeneration !== undefined) continue;
        const seen = firstSeen.get(name) ?? Date.now();
        firstSeen.set(name, seen);
        if (Date.now() - seen < 3_000) continue;
        const status = { observedGeneration: d.metadata.generation ?? 1, replicas: 1, updatedReplicas: 1 };
        await client.updateStatus(Deployments, { ...d, status: { ...status, readyReplicas: 1, availableReplicas: 1 } });
      }
      const pods = (await client.list<KubeObject>(Pods, { namespace })).items;
      for (const p of pods.filter((x) => x.metadata.deletionTimestamp))
        await client.delete(Pods, p.metadata.name as string, namespace, { gracePeriodSeconds: 0 }).catch(() => {});
      return deployments.length > 0 && deployments.every(isRolledOut);
    },
    { timeoutMs: 30_000, what: `deployments in ${namespace} rolled out` },
  );
}

export interface RecordedWrite {
  verb: 'create' | 'update' | 'updateStatus' | 'patch' | 'delete';
  type: string;
  name: string;
  propagationPolicy?: string;
}

/** The client, recording every write it makes (verb, kind, name; deletes: the propagation policy). */
export function spyWrites(client: KubeClient): { client: KubeClient; writes: RecordedWrite[] } {
  const writes: RecordedWrite[] = [];
  const verbs = new Set(['create', 'update', 'updateStatus', 'patch', 'delete']);
  const spy = new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !verbs.has(prop) || typeof value !== 'function') return value;
      return (type: ResourceType, arg: KubeObject | string, ...rest: unknown[]) => {
        const name = typeof arg === 'string' ? arg : (arg.metadata.name ?? '');
        const write: RecordedWrite = { verb: prop as RecordedWrite['verb'], type: type.kind, name };
        if (prop === 'delete') write.propagationPolicy = (rest[1] as DeleteOptions | undefined)?.propagationPolicy;
        writes.push(write);
        return (value as (...a: unknown[]) => unknown).call(target, type, arg, ...rest);
      };
    },
  });
  return { client: spy, writes };
}
