// Node capacity: the limit spread over the selected nodes (remainder to sorted names first),
// re-spread when nodes join, leave the selector or are recreated, and removed on delete.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Nodes } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { OWNER_ANNOTATION, spreadVms } from '../../../src/peerpod/controllers/peerpodconfig/index.ts';
import { advertise } from '../../../src/peerpod/controllers/peerpodconfig/nodes.ts';
import { NS, VM, createConfig, eventually, startController, startEnv, waitForCapacity } from './helpers.ts';
import { runCli } from '../../helpers/cli.ts';
import type { Env, Running } from './helpers.ts';

describe('spreadVms', () => {
  const table: Array<[string[], number, number[]]> = [
    [['a', 'b'], 5, [3, 2]],
    [['c', 'a', 'b'], 5, [2, 2, 1]],
    [['b', 'a'], 1, [1, 0]],
    [['a', 'b', 'c'], 0, [0, 0, 0]],
    [['a'], 7, [7]],
    [[], 4, []],
  ];
  for (const [nodes, limit, want] of table) {
    it(`${limit} over [${nodes.join(',')}]`, () => {
      const got = spreadVms(nodes, { limit });
      assert.deepEqual([...got.values()], want);
      assert.deepEqual([...got.keys()], [...nodes].sort());
    });
  }
  it('perNode', () =>
    assert.deepEqual(
      [...spreadVms(['b', 'a'], { perNode: 4 })],
      [
        ['a', 4],
        ['b', 4],
      ],
    ));
});

describe('PeerPodConfig node capacity', () => {
  let env: Env;
  let ctrl: Running;
  before(async () => {
    env = await startEnv(2);
    ctrl = await startController(env, { webhook: false, deployAdaptor: false });
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  it('spreads limit 5 over 2 nodes as 3 + 2, and re-spreads 2 + 2 + 1 when a third joins', async () => {
    await createConfig(env, 'spread', { limit: '5' });
    await waitForCapacity(env, { 'node-1': '3', 'node-2': '2' });
    const cfg = await eventually(async () => {
      const c = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'spread', NS);
      return c.status?.totalVMs === 5 && c.status.setupCompleted ? c : undefined;
    });
    assert.deepEqual(cfg.status?.allocation, [
      { node: 'node-1', vms: 3 },
      { node: 'node-2', vms: 2 },
    ]);
    assert.equal(cfg.status?.conditions?.find((c) => c.type === 'Ready')?.observedGeneration, cfg.metadata.generation);

    await env.cluster.internals.nodes.add('node-3');
    await waitForCapacity(env, { 'node-1': '2', 'node-2': '2', 'node-3': '1' });
  });

  it('re-advertises on a recreated node (which registers without the resource)', async () => {
    await env.cluster.internals.nodes.remove('node-3');
    await waitForCapacity(env, { 'node-1': '3', 'node-2': '2' });
    await env.cluster.internals.nodes.add('node-3');
    await waitForCapacity(env, { 'node-1': '2', 'node-2': '2', 'node-3': '1' });
  });

  it('removes the resource from a node that leaves the selector', async () => {
    await env.client.patch(
      Nodes,
      'node-3',
      undefined,
      { metadata: { labels: { 'node.kubernetes.io/worker': null } } },
      'merge',
    );
    await waitForCapacity(env, { 'node-1': '3', 'node-2': '2' });
    const n3 = await env.client.get<KubeObject>(Nodes, 'node-3');
    assert.equal(n3.metadata.annotations?.[OWNER_ANNOTATION], undefined);
  });

  it('follows a spec change to limitPerNode', async () => {
    await env.client.patch(PeerPodConfigs, 'spread', NS, { spec: { limit: null, limitPerNode: 4 } }, 'merge');
    await waitForCapacity(env, { 'node-1': '4', 'node-2': '4' });
  });

  it('takes the resource off every node when the PeerPodConfig is deleted (finalizer)', async () => {
    const cfg = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'spread', NS);
    assert.ok(cfg.metadata.finalizers?.includes('peerpodconfig.confidentialcontainers.org/finalizer'));
    await env.client.delete(PeerPodConfigs, 'spread', NS);
    await waitForCapacity(env, {});
    await eventually(
      async () => {
        try {
          await env.client.get(PeerPodConfigs, 'spread', NS);
          return false;
        } catch {
          return true;
        }
      },
      { what: 'PeerPodConfig gone' },
    );
  });

  it('limitPerNode with a nodeSelector gives each matching node the same count', async () => {
    await env.client.patch(Nodes, 'node-2', undefined, { metadata: { labels: { pool: 'vms' } } }, 'merge');
    await createConfig(env, 'pool', { limitPerNode: 7, nodeSelector: { pool: 'vms' } });
    await waitForCapacity(env, { 'node-2': '7' });
    await env.client.delete(PeerPodConfigs, 'pool', NS);
    await waitForCapacity(env, {});
  });
});

describe('advertise against a node that registered after it was cached', () => {
  let env: Env;
  before(async () => {
    env = await startEnv(1);
  });
  after(() => env.stop());

  it("adds the resource beside the kubelet's cpu, memory and pods", async () => {
    const stored = await env.client.get<KubeObject & { status: { capacity: Record<string, string> } }>(Nodes, 'node-1');
    assert.ok(stored.status.capacity.pods, 'the simulated kubelet reported its capacity');
    // The controller's cached copy predates the kubelet's status: no capacity list at all.
    const stale = { ...stored, status: {} };
    const controller = new AbortController();
    await advertise(env.client, stale, VM, 3, 'ns/cfg', controller.signal);
    const after = await env.client.get<KubeObject & { status: Record<string, Record<string, string>> }>(
      Nodes,
      'node-1',
    );
    assert.equal(after.status.capacity[VM], '3');
    assert.equal(after.status.allocatable[VM], '3');
    assert.equal(after.status.capacity.pods, stored.status.capacity.pods);
    assert.equal(after.status.capacity.cpu, stored.status.capacity.cpu);
  });
});

// Issue #16: a node added while a PeerPodConfig exists ended with only kata.peerpods.io/vm in its
// capacity (cpu, memory and pods gone), and its pods failed with `Too many pods`. Whichever of the
// controller's capacity write and the kubelet's first status lands first, both must survive: the
// kubelet adds its own resources beside extended ones it does not manage (kube's kubelet patches
// the keys it reports and leaves the others: pkg/kubelet/nodestatus/setters.go, MachineInfo), and
// the controller only ever merges its key in.
describe('a node added while a PeerPodConfig exists', () => {
  let env: Env;
  let ctrl: Running;
  before(async () => {
    env = await startEnv(1);
    ctrl = await startController(env, { webhook: false, deployAdaptor: false });
    await createConfig(env, 'joiners', { limitPerNode: 2 });
    await waitForCapacity(env, { 'node-1': '2' });
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
  });

  type NodeStatus = KubeObject & {
    status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
  };
  const complete = async (name: string) => {
    const node = await env.client.get<NodeStatus>(Nodes, name);
    const { capacity = {}, allocatable = {} } = node.status ?? {};
    const want = ['cpu', 'memory', 'pods', VM];
    return want.every((k) => capacity[k] !== undefined && allocatable[k] !== undefined) ? node : undefined;
  };

  it('keeps cpu, memory and pods when the capacity is advertised before the kubelet registers', async () => {
    // No kubelet yet (not labelled simulated): the controller's write is the node's first status.
    await env.client.create(Nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'late', labels: { 'node.kubernetes.io/worker': '' } },
    });
    await waitForCapacity(env, { 'node-1': '2', late: '2' });
    const before = await env.client.get<NodeStatus>(Nodes, 'late');
    assert.equal(before.status?.capacity?.pods, undefined, 'the kubelet has not registered yet');
    // Now its kubelet registers.
    await env.client.patch(
      Nodes,
      'late',
      undefined,
      { metadata: { labels: { 'peerpods.io/simulated': 'true' } } },
      'merge',
    );
    const node = await eventually(() => complete('late'), { what: "the kubelet's resources beside the VMs" });
    assert.equal(node.status?.capacity?.[VM], '2');
    assert.equal(node.status?.capacity?.pods, '110');
  });

  it('`peerpods cluster node add` (the repro) ends with the full capacity', async () => {
    const run = runCli(['cluster', 'node', 'add', 'node-7', '--kubeconfig', env.cluster.kubeconfigPath]);
    assert.equal((await run.exited).code, 0, run.output());
    const node = await eventually(() => complete('node-7'), { what: 'node-7 with cpu, memory, pods and VMs' });
    assert.equal(node.status?.capacity?.[VM], '2');
    // Still so once both writers have settled (a later write of either must not drop the other's keys).
    await waitForCapacity(env, { 'node-1': '2', late: '2', 'node-7': '2' });
    assert.ok(await complete('node-7'));
  });
});
