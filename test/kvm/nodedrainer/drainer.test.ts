// The node drainer against two embedded control planes: the management cluster holds the
// KVMConfig and DrainerConfigs, the workload cluster (three simulated nodes) the pods to evict.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DaemonSets,
  Events,
  KubeClient,
  Namespaces,
  Nodes,
  PodDisruptionBudgets,
  Pods,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { KubeObject, ReconcileContext, ReconcileResult } from '../../../src/runtime/index.ts';
import { Annotations, DrainerConfigs } from '../../../src/kvm/api/index.ts';
import type { DrainerConfig } from '../../../src/kvm/api/index.ts';
import { NodeDrainer, UNAVAILABLE_RETRY_MS } from '../../../src/kvm/nodedrainer/index.ts';
import type { Pod } from '../../../src/kvm/pods.ts';
import type { WorkloadClusters } from '../../../src/kvm/workload/index.ts';
import { eventually, startTestCluster } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import {
  clientOf,
  createKvmConfig,
  fixedWorkloadClusters,
  installKvmCrds,
  sampleKvmConfig,
  testDeps,
} from '../helpers.ts';

const NS = 'abc12';
const TIMEOUT_MS = 10 * 60_000;

const rctx = (): ReconcileContext => ({
  signal: new AbortController().signal,
  log: silentLogger(),
  reconcileId: 'test',
});

function condition(dc: DrainerConfig | undefined, type: string) {
  return dc?.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

describe('node drainer against a management and a workload cluster', { timeout: 180_000 }, () => {
  let mc: TestCluster;
  let wc: TestCluster;
  let mcClient: KubeClient;
  let wcClient: KubeClient;
  /** Added to the drainer's clock: moves it past the drain timeout. */
  let offset = 0;

  const drainer = (workload: WorkloadClusters = fixedWorkloadClusters({ [NS]: wcClient })) =>
    new NodeDrainer(testDeps(mcClient, { workload, options: { now: () => Date.now() + offset } }));
  const getDc = (name: string) => mcClient.get<DrainerConfig>(DrainerConfigs, name, NS);
  const createDc = (name: string, node: string, cluster = NS) =>
    mcClient.create<DrainerConfig>(DrainerConfigs, {
      metadata: { name, namespace: NS },
      spec: { guest: { cluster: { api: { endpoint: 'api' }, id: cluster }, node: { name: node } } },
    });
  const wcPod = async (
    name: string,
    node: string,
    o: { ns?: string; labels?: Record<string, string>; meta?: object } = {},
  ) => {
    await wcClient.create(Pods, {
      metadata: { name, namespace: o.ns ?? 'default', ...(o.labels ? { labels: o.labels } : {}), ...o.meta },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
    });
    await eventually(async () => (await wcClient.get<Pod>(Pods, name, o.ns ?? 'default')).status?.phase === 'Running', {
      what: `${name} running`,
    });
  };
  const exists = async (name: string, ns = 'default'): Promise<boolean> => {
    try {
      await wcClient.get(Pods, name, ns);
      return true;
    } catch {
      return false;
    }
  };
  const dcEvent = (name: string, reason: string, type: string) =>
    eventually(
      async () =>
        (
          await mcClient.list<KubeObject & { reason?: string; type?: string; involvedObject?: { name?: string } }>(
            Events,
            {
              namespace: NS,
            },
          )
        ).items.find((e) => e.reason === reason && e.type === type && e.involvedObject?.name === name),
      { what: `${type} ${reason} on ${name}` },
    );
  /** Reconciles as the controller would, until the drain reports an end. */
  const runUntilFinished = async (d: NodeDrainer, name: string): Promise<DrainerConfig> =>
    (await eventually(
      async () => {
        await d.reconcile({ namespace: NS, name }, rctx());
        const dc = await getDc(name);
        return condition(dc, 'Drained') || condition(dc, 'Timeout') ? dc : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `drain of ${name} finished` },
    )) as DrainerConfig;

  before(async () => {
    [mc, wc] = await Promise.all([startTestCluster(), startTestCluster({ nodes: 3 })]);
    mcClient = clientOf(mc);
    wcClient = clientOf(wc);
    await installKvmCrds(mcClient);
    await mcClient.create(Namespaces, { metadata: { name: NS } });
    await createKvmConfig(mcClient, sampleKvmConfig());
  });
  after(async () => {
    mcClient?.close();
    wcClient?.close();
    await Promise.all([mc?.stop(), wc?.stop()]);
  });

  it('drains a node: cordons it, evicts user pods then kube-system, keeps DaemonSet and static pods', async () => {
    const ds = await wcClient.create<KubeObject>(DaemonSets, {
      metadata: { name: 'agent', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-1' }, containers: [{ name: 'c', image: 'agent' }] },
        },
      },
    });
    await wcPod('app', 'node-1');
    await wcPod('dns', 'node-1', { ns: 'kube-system' });
    // The DaemonSet controller runs the agent's pod on node-1.
    const agent = (await eventually(
      async () =>
        (await wcClient.list<Pod>(Pods, { namespace: 'kube-system' })).items.find(
          (p) =>
            p.metadata.ownerReferences?.some((o) => o.uid === ds.metadata.uid) &&
            p.spec?.nodeName === 'node-1' &&
            p.status?.phase === 'Running',
        ),
      { what: 'the DaemonSet pod running on node-1' },
    ))!;
    await wcPod('static-api', 'node-1', {
      ns: 'kube-system',
      meta: { annotations: { [Annotations.configMirror]: 'x' } },
    });
    await wcPod('elsewhere', 'node-3');
    await createDc('node-1', 'node-1');
    const d = drainer();

    const first = (await d.reconcile({ namespace: NS, name: 'node-1' }, rctx())) as ReconcileResult;
    assert.ok(first.requeueAfter && first.requeueAfter <= 1000, 'comes back within a second');
    const node = await wcClient.get<KubeObject & { spec?: { unschedulable?: boolean } }>(Nodes, 'node-1');
    assert.equal(node.spec?.unschedulable, true, 'cordoned');
    const dns = await wcClient.get<Pod>(Pods, 'dns', 'kube-system');
    assert.equal(dns.metadata.deletionTimestamp, undefined, 'kube-system waits for the user pods');
    assert.equal((await getDc('node-1')).status?.evictedPods, 1);

    const dc = await runUntilFinished(d, 'node-1');
    const drained = condition(dc, 'Drained');
    assert.equal(drained?.reason, 'NodeDrained');
    assert.ok(drained?.lastTransitionTime && drained.lastHeartbeatTime);
    assert.equal(dc.status?.evictedPods, 2);
    assert.equal(dc.status?.remainingPods, 0);
    assert.equal(await exists('app'), false);
    assert.equal(await exists('dns', 'kube-system'), false);
    assert.equal(await exists(agent.metadata.name!, 'kube-system'), true, 'DaemonSet pod kept');
    assert.equal(await exists('static-api', 'kube-system'), true, 'static pod kept');
    assert.equal(await exists('elsewhere'), true, 'other nodes untouched');
    await dcEvent('node-1', 'NodeDrained', 'Normal');
    assert.equal(await d.reconcile({ namespace: NS, name: 'node-1' }, rctx()), undefined, 'finished: no requeue');
  });

  it('a PodDisruptionBudget holds the drain until the timeout', async () => {
    await wcPod('guarded', 'node-2', { labels: { app: 'guarded' } });
    await wcClient.create(PodDisruptionBudgets, {
      metadata: { name: 'guarded', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
    });
    await createDc('node-2', 'node-2');
    const d = drainer();
    for (let i = 0; i < 3; i++) {
      const r = (await d.reconcile({ namespace: NS, name: 'node-2' }, rctx())) as ReconcileResult;
      assert.ok(r.requeueAfter, 'keeps coming back');
    }
    const held = await getDc('node-2');
    assert.equal(condition(held, 'Drained'), undefined);
    assert.equal(condition(held, 'Timeout'), undefined);
    assert.equal(held.status?.remainingPods, 1);
    assert.equal(held.status?.evictedPods, 0);
    assert.equal(await exists('guarded'), true);

    offset = TIMEOUT_MS;
    try {
      const dc = await runUntilFinished(d, 'node-2');
      assert.equal(condition(dc, 'Timeout')?.reason, 'DrainTimeout');
      assert.equal(condition(dc, 'Drained'), undefined);
      assert.equal(await exists('guarded'), true);
      await dcEvent('node-2', 'DrainTimeout', 'Warning');
    } finally {
      offset = 0;
    }
  });

  it('a node that is gone counts as drained', async () => {
    await createDc('gone', 'no-such-node');
    const dc = await runUntilFinished(drainer(), 'gone');
    assert.equal(condition(dc, 'Drained')?.reason, 'NodeNotFound');
  });

  it('no KVMConfig: Timeout with reason ClusterNotFound', async () => {
    await createDc('orphan', 'node-1', 'nosuch');
    const r = await drainer().reconcile({ namespace: NS, name: 'orphan' }, rctx());
    assert.equal(r, undefined);
    assert.equal(condition(await getDc('orphan'), 'Timeout')?.reason, 'ClusterNotFound');
  });

  it('workload API unreachable: warns and retries every 5 s until the timeout', async () => {
    const dead = await startTestCluster();
    const deadClient = KubeClient.fromKubeconfigString(dead.kubeconfig, {
      metricsRegistry: null,
      logger: silentLogger(),
      requestTimeoutMs: 2000,
    });
    await dead.stop();
    const cases = [
      { name: 'no-creds', workload: fixedWorkloadClusters({}) },
      { name: 'down', workload: fixedWorkloadClusters({ [NS]: deadClient }) },
    ];
    try {
      for (const tc of cases) {
        await createDc(tc.name, 'node-1');
        const d = drainer(tc.workload);
        const r = (await d.reconcile({ namespace: NS, name: tc.name }, rctx())) as ReconcileResult;
        assert.equal(r.requeueAfter, UNAVAILABLE_RETRY_MS, tc.name);
        assert.equal((await getDc(tc.name)).status, undefined, `${tc.name}: nothing written`);
        await dcEvent(tc.name, 'WorkloadClusterUnavailable', 'Warning');
        offset = TIMEOUT_MS;
        try {
          assert.equal(await d.reconcile({ namespace: NS, name: tc.name }, rctx()), undefined);
          assert.equal(condition(await getDc(tc.name), 'Timeout')?.reason, 'DrainTimeout', tc.name);
        } finally {
          offset = 0;
        }
      }
    } finally {
      deadClient.close();
    }
  });
});
