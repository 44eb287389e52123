import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Nodes, Pods } from '../../../../src/runtime/index.ts';
import type { KubeObject } from '../../../../src/runtime/index.ts';
import { Annotations, Labels } from '../../../../src/kvm/api/index.ts';
import { KVM_DEFAULTS, resolveKvmOptions } from '../../../../src/kvm/options.ts';
import {
  planTerminations,
  terminateUnhealthyNodesHandler,
  terminationCap,
  terminationEnabled,
  unhealthyWindow,
} from '../../../../src/kvm/handlers/terminator/terminate-unhealthy-nodes.ts';
import type { NodePod, WorkloadNode } from '../../../../src/kvm/handlers/deleter/cluster-nodes.ts';
import { fixedWorkloadClusters, recordingContext, sampleKvmConfig, testDeps } from '../../helpers.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import {
  ID,
  createNamespace,
  createNodePod,
  createWorkloadNode,
  depsFor,
  nodePod,
  podName,
  podNames,
  startTwoClusters,
  workloadNode,
} from '../deleter/fixtures.ts';
import type { NodeOpts, TwoClusters } from '../deleter/fixtures.ts';

const MIN = 60_000;
const NOW = Date.parse('2021-02-16T12:00:00Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString();
const THRESHOLD = 30 * MIN;

describe('terminationEnabled', () => {
  const cases: Array<{ name: string; annotation?: string; option?: boolean; want: boolean }> = [
    { name: 'disabled by default', want: false },
    { name: 'annotation "true"', annotation: 'true', want: true },
    { name: 'annotation "false"', annotation: 'false', want: false },
    { name: 'annotation "True" is not "true" (as upstream)', annotation: 'True', want: false },
    { name: 'the operator-wide option', option: true, want: true },
    { name: 'the option wins over an annotation "false"', annotation: 'false', option: true, want: true },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const c = sampleKvmConfig();
      if (tc.annotation !== undefined) c.metadata.annotations = { [Annotations.terminateUnhealthy]: tc.annotation };
      const options = resolveKvmOptions(tc.option === undefined ? {} : { terminateUnhealthyNodes: tc.option });
      assert.equal(terminationEnabled(c, options), tc.want);
    });
  }
  it('defaults: off, 30 min', () => {
    assert.equal(KVM_DEFAULTS.terminateUnhealthyNodes, false);
    assert.equal(KVM_DEFAULTS.unhealthyNodeAfterMs, 30 * MIN);
  });
});

describe('terminationCap', () => {
  const cases: Array<[number, number]> = [
    [0, 1],
    [1, 1],
    [5, 1],
    [10, 1],
    [14, 1],
    [15, 2],
    [24, 2],
    [25, 3],
    [100, 10],
  ];
  for (const [nodes, want] of cases) it(`${nodes} nodes → ${want}`, () => assert.equal(terminationCap(nodes), want));
});

describe('unhealthyWindow', () => {
  const cases: Array<{ name: string; node: NodeOpts; want?: { since: number; badAt: number } }> = [
    { name: 'Ready: none', node: { ready: 'True', since: ago(60 * MIN) } },
    {
      name: 'False: from the transition',
      node: { ready: 'False', since: ago(10 * MIN), heartbeat: ago(10 * MIN) },
      want: { since: NOW - 10 * MIN, badAt: NOW + 20 * MIN },
    },
    {
      name: 'False with a fresh heartbeat: not before heartbeat + 30 s',
      node: { ready: 'False', since: ago(40 * MIN), heartbeat: ago(10_000) },
      want: { since: NOW - 40 * MIN, badAt: NOW + 20_000 },
    },
    {
      name: 'Unknown: the heartbeat does not matter',
      node: { ready: 'Unknown', since: ago(40 * MIN), heartbeat: ago(1_000) },
      want: { since: NOW - 40 * MIN, badAt: NOW - 10 * MIN },
    },
    {
      name: 'no Ready condition: from the creation',
      node: { ready: 'none', created: ago(5 * MIN) },
      want: { since: NOW - 5 * MIN, badAt: NOW + 25 * MIN },
    },
    {
      name: 'a Ready condition without lastTransitionTime: from the creation',
      node: { ready: 'Unknown', created: ago(50 * MIN) },
      want: { since: NOW - 50 * MIN, badAt: NOW - 20 * MIN },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.deepEqual(unhealthyWindow(workloadNode('n', tc.node), THRESHOLD), tc.want));
  }
});

describe('planTerminations', () => {
  const w = (i: number): string => podName('worker', `w${i}`);
  const m = (i: number): string => podName('master', `m${i}`);
  const masterLabels = { [Labels.role]: 'master' };
  /**
   * `count` nodes with their pods: m1, w1, w2... all Ready. `bad` gives some of them (or extra
   * ones, which take the place of the last workers) a NotReady status.
   */
  function cluster(count: number, bad: Record<string, NodeOpts> = {}): { nodes: WorkloadNode[]; pods: NodePod[] } {
    const base = [m(1), ...Array.from({ length: count - 1 }, (_, i) => w(i + 1))];
    const extra = Object.keys(bad).filter((n) => !base.includes(n));
    const names = [...base.slice(0, count - extra.length), ...extra];
    return {
      nodes: names.map((n) =>
        workloadNode(n, { labels: n.startsWith('master-') ? masterLabels : {}, ...(bad[n] ?? { ready: 'True' }) }),
      ),
      pods: names.map((n) => nodePod(n)),
    };
  }
  const down = (minutes: number, extra: NodeOpts = {}): NodeOpts => ({
    ready: 'Unknown',
    since: ago(minutes * MIN),
    ...extra,
  });

  const cases: Array<{
    name: string;
    nodes: WorkloadNode[];
    pods: NodePod[];
    threshold?: number;
    want: { terminate: string[]; deferred?: string[]; nextInMs?: number };
  }> = [
    { name: 'all Ready: nothing', ...cluster(5), want: { terminate: [] } },
    {
      name: 'NotReady for 29m59s: not yet; next check in 1 s',
      ...cluster(5, { [w(1)]: { ready: 'False', since: ago(THRESHOLD - 1000) } }),
      want: { terminate: [], nextInMs: 1000 },
    },
    {
      name: 'NotReady for exactly the threshold: terminated',
      ...cluster(5, { [w(1)]: { ready: 'False', since: ago(THRESHOLD) } }),
      want: { terminate: [w(1)] },
    },
    {
      name: 'False long enough but the kubelet reported 10 s ago: not yet (heartbeat guard)',
      ...cluster(5, { [w(1)]: { ready: 'False', since: ago(2 * THRESHOLD), heartbeat: ago(10_000) } }),
      want: { terminate: [], nextInMs: 20_000 },
    },
    {
      name: 'False long enough with a 30 s old heartbeat: terminated',
      ...cluster(5, { [w(1)]: { ready: 'False', since: ago(2 * THRESHOLD), heartbeat: ago(30_000) } }),
      want: { terminate: [w(1)] },
    },
    {
      name: 'a shorter threshold applies',
      ...cluster(5, { [w(1)]: down(6) }),
      threshold: 5 * MIN,
      want: { terminate: [w(1)] },
    },
    {
      name: '5 nodes: at most 1, longest-unhealthy first',
      ...cluster(5, { [w(1)]: down(40), [w(2)]: down(90), [w(3)]: down(60) }),
      want: { terminate: [w(2)], deferred: [w(3), w(1)] },
    },
    {
      name: '10 nodes: at most 1',
      ...cluster(10, { [w(1)]: down(40), [w(2)]: down(40) }),
      want: { terminate: [w(1)], deferred: [w(2)] },
    },
    {
      name: '15 nodes: at most 2 (1.5 rounds up)',
      ...cluster(15, { [w(1)]: down(40), [w(2)]: down(50), [w(3)]: down(60) }),
      want: { terminate: [w(3), w(2)], deferred: [w(1)] },
    },
    {
      name: '25 nodes: at most 3 (2.5 rounds up)',
      ...cluster(25, { [w(1)]: down(31), [w(2)]: down(32), [w(3)]: down(33), [w(4)]: down(34) }),
      want: { terminate: [w(4), w(3), w(2)], deferred: [w(1)] },
    },
    {
      name: 'at most one master, even within the cap; workers still go',
      ...cluster(25, {
        [m(1)]: down(90, { labels: masterLabels }),
        [m(2)]: down(80, { labels: { [Labels.nodeRoleMaster]: '' } }),
        [w(1)]: down(40),
      }),
      want: { terminate: [m(1), w(1)], deferred: [m(2)] },
    },
    {
      name: 'the role also comes from the pod when the node has no role label',
      nodes: [workloadNode(m(1), down(90)), workloadNode(m(2), down(80)), ...cluster(24).nodes.slice(1)],
      pods: [nodePod(m(1)), nodePod(m(2)), ...cluster(24).pods.slice(1)],
      want: { terminate: [m(1)], deferred: [m(2)] },
    },
    {
      name: 'a node pod already being deleted counts against the cap and is not terminated again',
      nodes: cluster(5, { [w(1)]: down(90), [w(2)]: down(60) }).nodes,
      pods: cluster(5).pods.map((p) => (p.metadata.name === w(1) ? nodePod(w(1), { deleting: true }) : p)),
      want: { terminate: [], deferred: [w(2)] },
    },
    {
      name: 'a master being replaced blocks other masters, not workers',
      nodes: cluster(25, { [m(2)]: down(60, { labels: masterLabels }), [w(1)]: down(50) }).nodes,
      pods: [...cluster(25).pods, nodePod(m(2)), nodePod(podName('master', 'm3'), { deleting: true })],
      want: { terminate: [w(1)], deferred: [m(2)] },
    },
    {
      name: 'a node without a node pod is the deleter’s business',
      nodes: cluster(5, { [w(1)]: down(90) }).nodes,
      pods: cluster(5).pods.filter((p) => p.metadata.name !== w(1)),
      want: { terminate: [] },
    },
    {
      name: 'next check: the soonest node to cross the threshold',
      ...cluster(5, { [w(1)]: down(10), [w(2)]: down(25), [w(3)]: down(45) }),
      want: { terminate: [w(3)], nextInMs: 5 * MIN },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const plan = planTerminations({
        nodes: tc.nodes,
        pods: tc.pods,
        now: NOW,
        thresholdMs: tc.threshold ?? THRESHOLD,
      });
      assert.deepEqual(
        plan.terminate.map((t) => t.node),
        tc.want.terminate,
      );
      assert.deepEqual(plan.deferred, tc.want.deferred ?? []);
      assert.equal(plan.nextInMs, tc.want.nextInMs);
      for (const t of plan.terminate) assert.equal(t.pod.metadata.name, t.node);
    });
  }
});

describe('terminateunhealthynodes handler (embedded control planes)', () => {
  let clusters: TwoClusters;
  const DRAINER = 'operatorkit.giantswarm.io/kvm-operator-drainer';
  const c = sampleKvmConfig({ id: ID, masters: 1, workers: 3 });
  const annotated = {
    ...c,
    metadata: { ...c.metadata, annotations: { [Annotations.terminateUnhealthy]: 'true' } },
  };
  const M1 = podName('master', 'm1');
  const W1 = podName('worker', 'w1');
  const W2 = podName('worker', 'w2');
  const W3 = podName('worker', 'w3');
  // The test's clock: nodes' timestamps are real (the API server's), `now` moves.
  let now = Date.now();
  const base = new Date(now).toISOString();

  before(async () => {
    clusters = await startTwoClusters();
    await createNamespace(clusters.mcClient, ID);
    await createNodePod(clusters.mcClient, c, M1);
    for (const w of [W1, W2, W3]) await createNodePod(clusters.mcClient, c, w, { ready: false, finalizer: DRAINER });
    await createWorkloadNode(clusters.wcClient, M1, { labels: { [Labels.role]: 'master' } });
    // W1 went NotReady first, then W2, then W3.
    await createWorkloadNode(clusters.wcClient, W1, { ready: 'Unknown', since: base });
    await createWorkloadNode(clusters.wcClient, W2, { ready: 'Unknown', since: new Date(now + 2 * MIN).toISOString() });
    await createWorkloadNode(clusters.wcClient, W3, { ready: 'False', since: new Date(now + 20 * MIN).toISOString() });
  });
  after(async () => {
    // Release the test's stand-in for the drainer's finalizer so the pods can go.
    for (const p of (await clusters?.mcClient.list<NodePod>(Pods, { namespace: ID }))?.items ?? []) {
      if (p.metadata.finalizers?.length)
        await clusters.mcClient.patch(Pods, p.metadata.name ?? '', ID, { metadata: { finalizers: null } }, 'merge');
    }
    await clusters?.stop();
  });

  const deleting = async (): Promise<string[]> =>
    (await clusters.mcClient.list<NodePod>(Pods, { namespace: ID })).items
      .filter((p) => p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name ?? '');
  const options = (extra = {}): Parameters<typeof depsFor>[1] => ({
    now: () => now,
    resyncMs: 60 * MIN,
    ...extra,
  });

  it('disabled by default: nothing happens however long nodes are NotReady', async () => {
    now += 3 * 60 * MIN;
    try {
      const { deps, events } = depsFor(clusters, options());
      const ctx = recordingContext();
      await terminateUnhealthyNodesHandler(deps).ensureCreated(c, ctx);
      assert.deepEqual(await deleting(), []);
      assert.deepEqual(events, []);
      assert.deepEqual(ctx.flags, {});
    } finally {
      now -= 3 * 60 * MIN;
    }
  });

  it('does nothing, and does not throw, while the workload cluster is unavailable', async () => {
    const deps = testDeps(clusters.mcClient, { workload: fixedWorkloadClusters(), options: options() });
    await terminateUnhealthyNodesHandler(deps).ensureCreated(annotated, recordingContext());
    assert.deepEqual(await deleting(), []);
  });

  it('before the threshold: nothing, and a requeue for when the first node crosses it', async () => {
    now += 25 * MIN;
    const { deps, events } = depsFor(clusters, options());
    const ctx = recordingContext();
    await terminateUnhealthyNodesHandler(deps).ensureCreated(annotated, ctx);
    assert.deepEqual(await deleting(), []);
    assert.deepEqual(events, []);
    const want = Date.parse(base) + 30 * MIN - now;
    assert.ok(
      Math.abs((ctx.flags.requeueAfter ?? 0) - want) < 1000,
      `requeueAfter ${ctx.flags.requeueAfter} ≈ ${want}`,
    );
  });

  it('the requeue is capped at the resync', async () => {
    const { deps } = depsFor(clusters, options({ resyncMs: 2 * MIN }));
    const ctx = recordingContext();
    await terminateUnhealthyNodesHandler(deps).ensureCreated(annotated, ctx);
    assert.equal(ctx.flags.requeueAfter, 2 * MIN);
  });

  it('past the threshold: terminates the longest-unhealthy node (cap 1 of 4), with a Warning', async () => {
    now += 15 * MIN; // W1 40 min, W2 38 min, W3 20 min NotReady
    const { deps, events } = depsFor(clusters, options());
    const ctx = recordingContext();
    await terminateUnhealthyNodesHandler(deps).ensureCreated(annotated, ctx);
    assert.deepEqual(await deleting(), [W1]);
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.on]),
      [['Warning', 'UnhealthyNodeTerminated', ID]],
    );
    assert.match(events[0].message, new RegExp(`${W1}.*NotReady for 40m`));
    assert.ok(Math.abs((ctx.flags.requeueAfter ?? 0) - 10 * MIN) < 1000, 'W3 crosses in 10 min');
    // Nothing was written to the workload nodes: no tick annotations.
    for (const n of (await clusters.wcClient.list<WorkloadNode>(Nodes)).items)
      assert.equal(n.metadata.annotations?.[Annotations.nodeNotReadyTick], undefined);
  });

  it('while that pod drains, no other node is terminated', async () => {
    const { deps, events } = depsFor(clusters, options());
    await terminateUnhealthyNodesHandler(deps).ensureCreated(annotated, recordingContext());
    assert.deepEqual(await deleting(), [W1]);
    assert.deepEqual(events, []);
  });

  it('once it is gone, the next one goes', async () => {
    await clusters.mcClient.patch<KubeObject>(Pods, W1, ID, { metadata: { finalizers: null } }, 'merge');
    await eventually(async () => !(await podNames(clusters.mcClient, ID)).includes(W1), { what: `${W1} gone` });
    // The operator-wide option enables it as well as the annotation.
    const { deps, events } = depsFor(clusters, options({ terminateUnhealthyNodes: true }));
    await terminateUnhealthyNodesHandler(deps).ensureCreated(c, recordingContext());
    assert.deepEqual(await deleting(), [W2]);
    assert.deepEqual(
      events.map((e) => e.reason),
      ['UnhealthyNodeTerminated'],
    );
    // W1's Node, now without a pod, is left to the deleter; the master was never touched.
    assert.ok((await podNames(clusters.mcClient, ID)).includes(M1));
  });

  it('ensureDeleted does nothing', async () => {
    now += 60 * MIN;
    const { deps, events } = depsFor(clusters, options());
    await terminateUnhealthyNodesHandler(deps).ensureDeleted(annotated, recordingContext('delete'));
    assert.deepEqual(await deleting(), [W2]);
    assert.deepEqual(events, []);
  });
});
