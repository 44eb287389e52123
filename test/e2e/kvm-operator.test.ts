// The kvm-operator end to end (see test/e2e/kvm/env.ts for the set-up): lifecycle of one workload
// cluster through every controller, asserted on the objects a user would look at.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ClusterRoleBindings,
  ConfigMaps,
  DaemonSets,
  Deployments,
  Endpoints,
  Ingresses,
  Namespaces,
  Nodes,
  Pods,
  ServiceAccounts,
  Services,
  isNotFound,
} from '../../src/runtime/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { DrainerConfigs, KVMConfigs, Labels, Releases, finalizerFor } from '../../src/kvm/index.ts';
import type { KVMConfig, Pod } from '../../src/kvm/index.ts';
import { eventually } from '../helpers/control-plane.ts';
import { sampleRelease } from '../helpers/kvm.ts';
import { CLUSTER_ID, startKvmEnv } from './kvm/env.ts';
import type { KvmEnv } from './kvm/env.ts';

const NS = CLUSTER_ID;
const T = { timeoutMs: 60_000, intervalMs: 100 };

interface Dep extends KubeObject {
  spec: { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; updatedReplicas?: number };
}

function lastCondition(c: KVMConfig): string | undefined {
  return c.status?.cluster?.conditions?.at(-1)?.type;
}

function isReady(node: KubeObject): boolean {
  const conds = (node.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

async function exists(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

describe('kvm-operator end to end', { timeout: 600_000 }, () => {
  let env: KvmEnv;

  before(async () => {
    env = await startKvmEnv({ masters: 1, workers: 2 });
  });
  after(async () => {
    await env?.stop();
  });

  const deploymentNames = async () =>
    (await env.mcClient.list<Dep>(Deployments, { namespace: NS })).items.map((d) => d.metadata.name).sort();

  /** Waits until every node pod runs, each has a Ready workload node, and the status says so. */
  async function settled(expectedNodes: number, what: string): Promise<void> {
    await eventually(
      async () => {
        const pods = (await env.nodePods()).filter((p) => p.status?.phase === 'Running');
        const all = await env.allNodePods();
        const nodes = await env.wcNodes();
        const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
        const c = await env.kvmConfig();
        return (
          pods.length === expectedNodes &&
          all.length === expectedNodes &&
          pods.every((p) => byName.has(p.metadata.name) && isReady(byName.get(p.metadata.name)!)) &&
          ['Created', 'Updated'].includes(lastCondition(c) ?? '')
        );
      },
      { ...T, what },
    );
  }

  it('creates every object of a 1 master + 2 worker cluster', async () => {
    await settled(3, 'three running node pods with workload nodes, cluster Created');
    const c = await env.kvmConfig();
    assert.deepEqual(c.status?.kvm?.nodeIndexes, { m1: 1, w1: 2, w2: 3 });
    assert.ok(c.metadata.finalizers?.includes(finalizerFor('kvm-operator')));
    assert.equal(c.status?.cluster?.versions?.at(-1)?.semver, '14.1.0');

    const ns = await env.mcClient.get(Namespaces, NS);
    assert.equal(ns.metadata.labels?.cluster, CLUSTER_ID);
    await env.mcClient.get(ServiceAccounts, CLUSTER_ID, NS);
    for (const name of [CLUSTER_ID, `${CLUSTER_ID}-psp`]) {
      const crb = await env.mcClient.get<KubeObject & { subjects: { name: string; namespace: string }[] }>(
        ClusterRoleBindings,
        name,
      );
      assert.deepEqual(
        crb.subjects.map((s) => `${s.namespace}/${s.name}`),
        [`${CLUSTER_ID}/${CLUSTER_ID}`],
      );
    }
    const cms = (
      await env.mcClient.list(ConfigMaps, { namespace: NS, labelSelector: `${Labels.managedBy}=kvm-operator` })
    ).items
      .map((x) => x.metadata.name)
      .sort();
    assert.deepEqual(cms, [`master-${CLUSTER_ID}-m1`, `worker-${CLUSTER_ID}-w1`, `worker-${CLUSTER_ID}-w2`]);
    assert.deepEqual(await deploymentNames(), ['master-m1', 'worker-w1', 'worker-w2']);
    const master = await env.mcClient.get<Dep>(Deployments, 'master-m1', NS);
    assert.equal((master.spec as { strategy?: { type?: string } }).strategy?.type, 'Recreate');
    assert.equal(master.spec.template.spec.hostNetwork, true);
    assert.deepEqual(master.spec.template.spec.nodeSelector, { role: 'master' });
    for (const svc of ['master', 'worker']) {
      const s = await env.mcClient.get<KubeObject & { spec: { selector?: unknown } }>(Services, svc, NS);
      assert.equal(s.spec.selector, undefined, `${svc} service has no selector`);
    }
    for (const ing of ['api', 'etcd']) await env.mcClient.get(Ingresses, ing, NS);

    // Masters and workers run on the nodes of their role, one node pod per node (anti-affinity).
    const pods = await env.nodePods();
    const hosts = pods.map((p) => p.spec?.nodeName);
    assert.equal(new Set(hosts).size, 3);
    const masterPod = pods.find((p) => p.metadata.labels?.app === 'master')!;
    assert.equal(masterPod.spec?.nodeName, 'node-1');

    // Endpoints follow the VMs' IPs (annotations written by the endpoint updater).
    await eventually(
      async () => {
        const ep = await env.mcClient.get<KubeObject & { subsets?: { addresses?: { ip: string }[] }[] }>(
          Endpoints,
          'worker',
          NS,
        );
        const ips = (ep.subsets ?? [])
          .flatMap((s) => s.addresses ?? [])
          .map((a) => a.ip)
          .sort();
        const want = pods
          .filter((p) => p.metadata.labels?.app === 'worker')
          .map((p) => p.metadata.annotations?.['endpoint.kvm.giantswarm.io/ip'])
          .sort();
        return JSON.stringify(ips) === JSON.stringify(want) && ips.length === 2;
      },
      { ...T, what: 'worker Endpoints list both worker VM IPs' },
    );
    // The workload nodes carry the roles and versions the user data asked for.
    const wcMaster = await env.wcClient.get(Nodes, masterPod.metadata.name as string);
    assert.equal(wcMaster.metadata.labels?.role, 'master');
    assert.equal(wcMaster.metadata.labels?.[Labels.operatorVersion], '3.15.0');
  });

  it('scales workers 2 → 3 → 1 and reuses freed node indexes', async () => {
    const scale = async (workerIds: string[]) => {
      const c = await env.kvmConfig();
      const vm = c.spec.kvm.workers![0];
      await env.mcClient.patch(
        KVMConfigs,
        CLUSTER_ID,
        'default',
        [
          { op: 'replace', path: '/spec/cluster/workers', value: workerIds.map((id) => ({ id })) },
          { op: 'replace', path: '/spec/kvm/workers', value: workerIds.map(() => vm) },
        ],
        'json',
      );
    };
    await scale(['w1', 'w2', 'w3']);
    await settled(4, 'four node pods');
    assert.deepEqual((await env.kvmConfig()).status?.kvm?.nodeIndexes, { m1: 1, w1: 2, w2: 3, w3: 4 });

    await scale(['w1']);
    await settled(2, 'two node pods');
    await eventually(async () => (await deploymentNames()).join() === 'master-m1,worker-w1', {
      ...T,
      what: 'the deployments of w2 and w3 deleted',
    });
    await eventually(
      async () => JSON.stringify((await env.kvmConfig()).status?.kvm?.nodeIndexes) === JSON.stringify({ m1: 1, w1: 2 }),
      { ...T, what: 'indexes of w2 and w3 released' },
    );
    // Workload nodes of the removed workers lost their pods and are deleted by the deleter.
    await eventually(async () => (await env.wcNodes()).length === 2, { ...T, what: 'two workload nodes left' });

    await scale(['w1', 'w4']);
    await settled(3, 'three node pods again');
    assert.deepEqual((await env.kvmConfig()).status?.kvm?.nodeIndexes, { m1: 1, w1: 2, w4: 3 });
  });

  it('rolls a release bump one deployment at a time', async () => {
    await env.mcClient.create(Releases, sampleRelease('14.2.0', '1.20.4') as KubeObject);
    // Record every annotation flip and how many deployments were mid-rollout at that moment.
    const flips: string[] = [];
    let maxInFlight = 0;
    let stop = false;
    const watcher = (async () => {
      while (!stop) {
        const deps = (await env.mcClient.list<Dep>(Deployments, { namespace: NS })).items;
        for (const d of deps) {
          const v = d.metadata.annotations?.['giantswarm.io/release-version'];
          if (v === '14.2.0' && !flips.includes(d.metadata.name as string)) flips.push(d.metadata.name as string);
        }
        const inFlight = deps.filter((d) => {
          const s = d.status ?? {};
          const rolled = d.metadata.annotations?.['giantswarm.io/release-version'] === '14.2.0';
          return rolled && !(s.availableReplicas === 1 && s.updatedReplicas === 1 && s.readyReplicas === 1);
        }).length;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    try {
      await env.mcClient.patch(
        KVMConfigs,
        CLUSTER_ID,
        'default',
        { metadata: { labels: { [Labels.releaseVersion]: '14.2.0' } } },
        'merge',
      );
      await eventually(
        async () => {
          const c = await env.kvmConfig();
          return c.status?.cluster?.versions?.at(-1)?.semver === '14.2.0' && lastCondition(c) === 'Updated';
        },
        { ...T, timeoutMs: 180_000, what: 'cluster Updated to 14.2.0' },
      );
    } finally {
      stop = true;
      await watcher;
    }
    assert.deepEqual(flips, ['master-m1', 'worker-w1', 'worker-w4'], 'updated in name order');
    assert.equal(maxInFlight, 1, 'never more than one deployment rolling');
    for (const n of await env.wcNodes()) {
      if (isReady(n)) assert.equal(n.metadata.labels?.[Labels.releaseVersion], '14.2.0');
    }
  });

  it('drains the workload node before its node pod goes', async () => {
    await settled(3, 'cluster settled');
    const pod = (await env.nodePods()).find((p) => p.metadata.labels?.node === 'w1')!;
    const nodeName = pod.metadata.name as string;
    // Workload pods on that node: one ordinary, one the DaemonSet controller runs there (drain leaves it).
    const ds = await env.wcClient.create<KubeObject>(DaemonSets, {
      metadata: { name: 'agent', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    await env.wcClient.create(Pods, {
      metadata: { name: 'app-1', namespace: 'default' },
      spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] },
    });
    const daemonPod = (await eventually(
      async () =>
        (await env.wcClient.list<Pod>(Pods, { namespace: 'default' })).items.find(
          (p) => p.metadata.ownerReferences?.some((o) => o.uid === ds.metadata.uid) && p.spec?.nodeName === nodeName,
        ),
      { ...T, what: 'the DaemonSet pod on the node' },
    ))!;
    await eventually(async () => (await env.wcClient.get<Pod>(Pods, 'app-1', 'default')).status?.phase === 'Running', {
      ...T,
      what: 'workload pod running',
    });
    const seen: string[] = [];
    // What the workload cluster looked like at the last look before the node pod disappeared.
    let cordoned = false;
    let appEvicted = false;
    let daemonKept = false;
    let drainedBeforeGone: boolean | undefined;
    const probe = (async () => {
      for (;;) {
        const dc = await env.mcClient
          .get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
            DrainerConfigs,
            nodeName,
            NS,
          )
          .catch(() => undefined);
        if (dc && !seen.includes('drainerconfig')) seen.push('drainerconfig');
        if (
          dc?.status?.conditions?.some((c) => c.type === 'Drained' && c.status === 'True') &&
          !seen.includes('drained')
        )
          seen.push('drained');
        const node = await env.wcClient
          .get<KubeObject & { spec: { unschedulable?: boolean } }>(Nodes, nodeName)
          .catch(() => undefined);
        const app = await exists(() => env.wcClient.get(Pods, 'app-1', 'default'));
        const daemon = await exists(() => env.wcClient.get(Pods, daemonPod.metadata.name!, 'default'));
        if (!(await exists(() => env.mcClient.get(Pods, nodeName, NS)))) {
          drainedBeforeGone = cordoned && appEvicted;
          return;
        }
        cordoned = node?.spec.unschedulable === true;
        appEvicted = !app;
        daemonKept = daemon;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await env.mcClient.delete(Pods, nodeName, NS);
    await Promise.race([
      probe,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`pod ${nodeName} not gone: ${seen.join(',')}`)), 90_000),
      ),
    ]);
    assert.deepEqual(seen, ['drainerconfig', 'drained']);
    assert.equal(drainedBeforeGone, true, 'node cordoned and workload pods evicted before the node pod went');
    assert.equal(daemonKept, true, 'the DaemonSet pod is not evicted');
    // The DrainerConfig is cleaned up; the Deployment replaces the pod.
    await eventually(async () => !(await exists(() => env.mcClient.get(DrainerConfigs, nodeName, NS))), {
      ...T,
      what: 'DrainerConfig deleted',
    });
    await settled(3, 'replacement pod running');
  });

  it('deletes a workload node that has no node pod', async () => {
    await env.wcClient.create(Nodes, {
      metadata: { name: 'worker-w9-5d8f7c9b6-x2x2x', labels: { role: 'worker' } },
    });
    await env.wcClient
      .updateStatus(Nodes, {
        metadata: { name: 'worker-w9-5d8f7c9b6-x2x2x' },
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'KubeletNotReady',
              lastHeartbeatTime: new Date(0).toISOString(),
              lastTransitionTime: new Date(0).toISOString(),
            },
          ],
        },
      } as KubeObject)
      .catch(async () => {
        const n = await env.wcClient.get(Nodes, 'worker-w9-5d8f7c9b6-x2x2x');
        n.status = {
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'KubeletNotReady',
              lastHeartbeatTime: new Date(0).toISOString(),
              lastTransitionTime: new Date(0).toISOString(),
            },
          ],
        };
        await env.wcClient.updateStatus(Nodes, n);
      });
    await eventually(async () => !(await exists(() => env.wcClient.get(Nodes, 'worker-w9-5d8f7c9b6-x2x2x'))), {
      ...T,
      what: 'stray workload node deleted',
    });
  });

  it('replaces a node that stays NotReady past the threshold', async () => {
    await settled(3, 'cluster settled');
    await env.mcClient.patch(
      KVMConfigs,
      CLUSTER_ID,
      'default',
      { metadata: { annotations: { 'alpha.node.giantswarm.io/terminate-unhealthy': 'true' } } },
      'merge',
    );
    const victim = (await env.nodePods()).find((p) => p.metadata.labels?.node === 'w4')!;
    const name = victim.metadata.name as string;
    await env.wc.internals.nodes.setReady(name, false);
    // Not yet: NotReady for less than 30 minutes.
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(await exists(() => env.mcClient.get(Pods, name, NS)), 'not replaced before the threshold');
    env.advanceClock(31 * 60_000);
    await eventually(async () => !(await exists(() => env.mcClient.get(Pods, name, NS))), {
      ...T,
      what: 'unhealthy node pod deleted',
    });
    await settled(3, 'replacement running');
  });

  it('tears down in order and releases every finalizer', async () => {
    const crbNames = [CLUSTER_ID, `${CLUSTER_ID}-psp`];
    let crbsGoneWhilePods = false;
    let nsDeletedWhilePods = false;
    let stop = false;
    const watch = (async () => {
      while (!stop) {
        const pods = await env.allNodePods().catch(() => []);
        if (pods.length > 0) {
          for (const n of crbNames)
            if (!(await exists(() => env.mcClient.get(ClusterRoleBindings, n)))) crbsGoneWhilePods = true;
          const ns = await env.mcClient.get(Namespaces, NS).catch(() => undefined);
          if (ns?.metadata.deletionTimestamp) nsDeletedWhilePods = true;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    try {
      await env.mcClient.delete(KVMConfigs, CLUSTER_ID, 'default');
      await eventually(async () => !(await exists(() => env.kvmConfig())), {
        ...T,
        timeoutMs: 120_000,
        what: 'KVMConfig gone (all finalizers released)',
      });
    } finally {
      stop = true;
      await watch;
    }
    assert.equal(crbsGoneWhilePods, false, 'bindings outlive the node pods');
    assert.equal(nsDeletedWhilePods, false, 'namespace deleted only after the node pods');
    for (const n of crbNames) assert.equal(await exists(() => env.mcClient.get(ClusterRoleBindings, n)), false);
    await eventually(async () => !(await exists(() => env.mcClient.get(Namespaces, NS))), {
      ...T,
      what: 'namespace gone',
    });
  });
});
