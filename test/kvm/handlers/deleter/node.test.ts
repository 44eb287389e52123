import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient, Nodes, Pods, silentLogger } from '../../../../src/runtime/index.ts';
import {
  isNodePodName,
  workloadNodeHandler,
  workloadNodesToDelete,
} from '../../../../src/kvm/handlers/deleter/node.ts';
import type { NodePod, WorkloadNode } from '../../../../src/kvm/handlers/deleter/cluster-nodes.ts';
import { fixedWorkloadClusters, recordingContext, sampleKvmConfig, testDeps } from '../../helpers.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import {
  ID,
  createNamespace,
  createNodePod,
  createWorkloadNode,
  depsFor,
  nodeNames,
  nodePod,
  podName,
  startTwoClusters,
  workloadNode,
} from './fixtures.ts';
import type { TwoClusters } from './fixtures.ts';

const M1 = podName('master', 'm1');
const W1 = podName('worker', 'w1');
const W2 = podName('worker', 'w2');
const W1_OLD = podName('worker', 'w1', 'q9zz4');

describe('isNodePodName', () => {
  const cases: Array<[string, boolean]> = [
    [M1, true],
    [W1, true],
    ['worker-node-with-dashes-5d8f7c9b4-x7k2p', true],
    ['master-m1', false],
    ['worker-w1-x7k2p', false],
    ['ingress-w1-5d8f7c9b4-x7k2p', false],
    ['gpu-pool-1', false],
    ['Worker-w1-5d8f7c9b4-x7k2p', false],
  ];
  for (const [name, want] of cases) it(`${name} → ${want}`, () => assert.equal(isNodePodName(name), want));
});

describe('workloadNodesToDelete', () => {
  const c = sampleKvmConfig({ id: ID, masters: 1, workers: 2 });
  const cases: Array<{
    name: string;
    config?: ReturnType<typeof sampleKvmConfig>;
    pods: NodePod[];
    nodes: WorkloadNode[];
    want: string[];
    skip?: boolean;
  }> = [
    {
      name: 'NotReady (False) and no pod: deleted',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1), workloadNode(W1_OLD, { ready: 'False' })],
      want: [W1_OLD],
    },
    {
      name: 'NotReady (Unknown) and no pod: deleted',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1_OLD, { ready: 'Unknown' })],
      want: [W1_OLD],
    },
    {
      name: 'no Ready condition and no pod: deleted',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1_OLD, { ready: 'none' })],
      want: [W1_OLD],
    },
    {
      name: 'Ready and no pod: kept (it runs, whatever the management cluster says)',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1_OLD, { ready: 'True' })],
      want: [],
    },
    {
      name: 'NotReady but its pod exists: kept (the terminator decides about it)',
      pods: [nodePod(W1, { ready: false })],
      nodes: [workloadNode(W1, { ready: 'False' })],
      want: [],
    },
    {
      name: 'NotReady and its pod is being deleted: kept while the drain runs',
      pods: [nodePod(W1, { deleting: true })],
      nodes: [workloadNode(W1, { ready: 'Unknown' })],
      want: [],
    },
    {
      name: 'a node not named like a node pod is never ours to delete',
      pods: [nodePod(W1)],
      nodes: [workloadNode('gpu-pool-1', { ready: 'False' }), workloadNode('master-m1', { ready: 'False' })],
      want: [],
    },
    {
      name: 'empty pod list while the KVMConfig has nodes: nothing deleted',
      pods: [],
      nodes: [workloadNode(M1, { ready: 'Unknown' }), workloadNode(W1, { ready: 'Unknown' })],
      want: [],
      skip: true,
    },
    {
      name: 'empty pod list for a KVMConfig without nodes: NotReady nodes go',
      config: sampleKvmConfig({ id: ID, masters: 0, workers: 0 }),
      pods: [],
      nodes: [workloadNode(W1, { ready: 'Unknown' }), workloadNode(W2)],
      want: [W1],
    },
    {
      name: 'a scaled-in node (its ID no longer in the KVMConfig) is deleted too',
      pods: [nodePod(M1)],
      nodes: [workloadNode(M1), workloadNode(podName('worker', 'gone9'), { ready: 'Unknown' })],
      want: [podName('worker', 'gone9')],
    },
    {
      name: 'mixed: only NotReady nodes without pods',
      pods: [nodePod(M1), nodePod(W1), nodePod(W2, { ready: false })],
      nodes: [
        workloadNode(M1),
        workloadNode(W1),
        workloadNode(W2, { ready: 'False' }),
        workloadNode(W1_OLD, { ready: 'Unknown' }),
        workloadNode(podName('master', 'm1', 'aaaaa'), { ready: 'True' }),
      ],
      want: [W1_OLD],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const plan = workloadNodesToDelete(tc.config ?? c, tc.pods, tc.nodes);
      assert.deepEqual(
        plan.delete.map((n) => n.metadata.name),
        tc.want,
      );
      assert.equal(plan.skip !== undefined, tc.skip ?? false, plan.skip);
    });
  }
});

describe('node handler (embedded control planes)', () => {
  let clusters: TwoClusters;
  const c = sampleKvmConfig({ id: ID, masters: 1, workers: 2 });

  before(async () => {
    clusters = await startTwoClusters();
    await createNamespace(clusters.mcClient, ID);
  });
  after(async () => clusters?.stop());

  it('does nothing, and does not throw, while the workload cluster is unavailable', async () => {
    const noCredentials = testDeps(clusters.mcClient, { workload: fixedWorkloadClusters() });
    await workloadNodeHandler(noCredentials).ensureCreated(c, recordingContext());
    // An API that refuses connections: the same.
    const kubeconfig = clusters.wc.kubeconfig.replace(/server: https:\/\/[^\s]+/, 'server: https://127.0.0.1:1');
    assert.notEqual(kubeconfig, clusters.wc.kubeconfig);
    const refused = KubeClient.fromKubeconfigString(kubeconfig, { metricsRegistry: null, logger: silentLogger() });
    try {
      const deps = testDeps(clusters.mcClient, { workload: fixedWorkloadClusters({ [ID]: refused }) });
      await workloadNodeHandler(deps).ensureCreated(c, recordingContext());
    } finally {
      refused.close();
    }
  });

  it('an empty node pod list never wipes the workload cluster', async () => {
    await createWorkloadNode(clusters.wcClient, M1, { ready: 'Unknown' });
    await createWorkloadNode(clusters.wcClient, W1, { ready: 'False' });
    const { deps, events } = depsFor(clusters);
    await workloadNodeHandler(deps).ensureCreated(c, recordingContext());
    assert.deepEqual(await nodeNames(clusters.wcClient), [M1, W1].sort());
    assert.deepEqual(events, []);
  });

  it('deletes NotReady nodes without a node pod, and only those', async () => {
    await createNodePod(clusters.mcClient, c, M1);
    await createNodePod(clusters.mcClient, c, W2, { ready: false });
    // W1's pod was replaced by W2's: W1's Node is left behind, NotReady (created above).
    await createWorkloadNode(clusters.wcClient, W2, { ready: 'False' });
    await createWorkloadNode(clusters.wcClient, W1_OLD, { ready: 'True' });
    await createWorkloadNode(clusters.wcClient, 'gpu-pool-1', { ready: 'Unknown' });
    const { deps, events } = depsFor(clusters);
    const ctx = recordingContext();
    await workloadNodeHandler(deps).ensureCreated(c, ctx);
    assert.deepEqual(await nodeNames(clusters.wcClient), [M1, W2, W1_OLD, 'gpu-pool-1'].sort());
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.on]),
      [['Normal', 'WorkloadNodeDeleted', ID]],
    );
    assert.match(events[0].message, new RegExp(W1));
    assert.deepEqual(ctx.flags, {});
    // The node pods were not touched.
    assert.equal((await clusters.mcClient.list(Pods, { namespace: ID })).items.length, 2);
  });

  it('a node that changed since it was listed is left for the next run', async () => {
    const stale = podName('worker', 'w3', 'zzzzz');
    await createWorkloadNode(clusters.wcClient, stale, { ready: 'Unknown' });
    const { deps, events } = depsFor(clusters);
    // The kubelet reports in between the list and the delete: the precondition fails the delete.
    const wc = clusters.wcClient;
    const racing = new Proxy(wc, {
      get(target, prop, receiver) {
        if (prop !== 'delete') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<KubeClient['delete']>) => {
          const node = await target.get<WorkloadNode>(Nodes, stale);
          await target.updateStatus(Nodes, { ...node, status: { ...node.status, conditions: [] } });
          return target.delete(...args);
        };
      },
    });
    deps.workload = fixedWorkloadClusters({ [ID]: racing });
    await workloadNodeHandler(deps).ensureCreated(c, recordingContext());
    assert.ok((await nodeNames(wc)).includes(stale), 'kept: it changed after it was judged');
    assert.deepEqual(events, []);
    // Judged again on the next run (still NotReady, still no pod): deleted. Wait for the node
    // lifecycle controller to drop the taint first, or its write could race this run too.
    await eventually(
      async () =>
        ((await wc.get<WorkloadNode & { spec?: { taints?: unknown[] } }>(Nodes, stale)).spec?.taints ?? []).length ===
        0,
      { what: 'taints removed' },
    );
    deps.workload = fixedWorkloadClusters({ [ID]: wc });
    await workloadNodeHandler(deps).ensureCreated(c, recordingContext());
    assert.ok(!(await nodeNames(wc)).includes(stale));
  });

  it('ensureDeleted does nothing', async () => {
    await createWorkloadNode(clusters.wcClient, W1, { ready: 'Unknown' });
    const { deps, events } = depsFor(clusters);
    await workloadNodeHandler(deps).ensureDeleted(c, recordingContext('delete'));
    assert.ok((await nodeNames(clusters.wcClient)).includes(W1));
    assert.deepEqual(events, []);
  });
});
