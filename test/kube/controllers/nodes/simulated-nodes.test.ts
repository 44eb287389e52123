// Simulated nodes and kubelets: Ready nodes with renewing Leases, pods Running and Ready with
// IPs, graceful deletion through kubectl, node agents claiming a runtime class, and nodes added,
// removed and made NotReady from code and from the API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import type { NodeAgentEvent } from '../../../../src/kube/controllers/nodes/simulated-nodes.ts';
import { boundNode, createPod, ctx, defs, getPod, until } from '../scheduler/helpers.ts';

describe('simulated nodes', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2, simulatedNodes: { heartbeatIntervalMs: 300 } });
  });
  after(() => cp.stop());

  const node = (name: string): JsonObject => cp.internals.store.get(defs(cp).nodes, undefined, name);
  const lease = (name: string): JsonObject | undefined => {
    const s = cp.internals.store.getStored(defs(cp).leases, 'kube-node-lease', name);
    return s ? (JSON.parse(s.json) as JsonObject) : undefined;
  };

  test('nodes are Ready workers with capacity, addresses and node info', async () => {
    const r = await kubectl(cp.kubeconfigPath, ['get', 'nodes', '-l', 'node.kubernetes.io/worker', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['node/node-1', 'node/node-2']);
    const n = node('node-2');
    const labels = (n.metadata as { labels: Record<string, string> }).labels;
    assert.equal(labels['kubernetes.io/hostname'], 'node-2');
    assert.equal(labels['kubernetes.io/os'], 'linux');
    const status = n.status as {
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      conditions: JsonObject[];
      addresses: JsonObject[];
      nodeInfo: JsonObject;
    };
    assert.equal(status.allocatable.cpu, '4');
    assert.equal(status.allocatable.memory, '16Gi');
    assert.equal(status.allocatable.pods, '110');
    assert.equal(status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.deepEqual(status.addresses[0], { type: 'InternalIP', address: '127.0.0.2' });
    assert.equal(status.nodeInfo.operatingSystem, 'linux');
  });

  test('leases in kube-node-lease are renewed', async () => {
    const first = await until(() => lease('node-1'));
    assert.equal((first.spec as JsonObject).holderIdentity, 'node-1');
    assert.match(String((first.spec as JsonObject).renewTime), /\.\d{6}Z$/);
    await eventually(() => (lease('node-1')?.spec as JsonObject).renewTime !== (first.spec as JsonObject).renewTime, {
      what: 'lease renewal',
    });
  });

  test('a node with nothing new posts no status between reports; its lease alone says it is alive', async () => {
    const rv = (node('node-1').metadata as { resourceVersion: string }).resourceVersion;
    const renewTime = (): string => String((lease('node-1')?.spec as JsonObject).renewTime);
    const seen = new Set([renewTime()]);
    // Three renewals at 300 ms; the status is reported every 5 min (kube's default).
    await eventually(() => seen.add(renewTime()).size >= 4, { what: 'three lease renewals' });
    assert.equal((node('node-1').metadata as { resourceVersion: string }).resourceVersion, rv);
  });

  test('a pod runs: Running, Ready, IPs, container statuses; kubectl wait works', async () => {
    await createPod(cp, 'web', { containers: [{ name: 'app', image: 'nginx:1.27' }] });
    const r = await kubectl(cp.kubeconfigPath, ['wait', '--for=condition=Ready', 'pod/web', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    const pod = getPod(cp, 'web');
    const status = pod.status as JsonObject & { containerStatuses: JsonObject[]; conditions: JsonObject[] };
    assert.equal(status.phase, 'Running');
    const nodeName = (pod.spec as { nodeName: string }).nodeName;
    const index = nodeName === 'node-1' ? 1 : 2;
    assert.equal(status.hostIP, `127.0.0.${index}`);
    assert.match(String(status.podIP), new RegExp(`^10\\.244\\.${index}\\.\\d+$`));
    assert.ok(status.startTime);
    for (const t of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready']) {
      assert.equal(status.conditions.find((c) => c.type === t)?.status, 'True', t);
    }
    const cs = status.containerStatuses[0];
    assert.equal(cs.ready, true);
    assert.equal(cs.started, true);
    assert.equal(cs.restartCount, 0);
    assert.equal(cs.image, 'nginx:1.27');
    assert.match(String(cs.containerID), /^simulated:\/\//);
    assert.ok((cs.state as { running?: { startedAt?: string } }).running?.startedAt);
  });

  test('kubectl delete pod returns once the kubelet has finished the graceful deletion', async () => {
    await createPod(cp, 'doomed');
    await eventually(() => (getPod(cp, 'doomed').status as JsonObject).phase === 'Running');
    const r = await kubectl(cp.kubeconfigPath, ['delete', 'pod', 'doomed', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(cp.internals.store.getStored(defs(cp).pods, 'default', 'doomed'), undefined);
  });

  test('a node agent claims its runtime class: the kubelet leaves those pods alone', async () => {
    const seen: NodeAgentEvent[] = [];
    cp.internals.registerNodeAgent('kata-remote', (e) => seen.push(e));
    const rcDef = cp.internals.catalog.lookup('node.k8s.io', 'v1', 'runtimeclasses')!;
    await cp.internals.store.create(
      rcDef,
      undefined,
      { metadata: { name: 'kata-remote' }, handler: 'kata-remote' },
      ctx,
    );
    await createPod(cp, 'peer', { runtimeClassName: 'kata-remote' });
    await boundNode(cp, 'peer');
    await eventually(() => seen.some((e) => (e.pod.metadata as JsonObject).name === 'peer'), { what: 'agent told' });
    await createPod(cp, 'normal');
    await eventually(() => (getPod(cp, 'normal').status as JsonObject).phase === 'Running');
    const status = getPod(cp, 'peer').status as JsonObject;
    assert.equal(status.phase, 'Pending');
    assert.equal(status.startTime, undefined);
    cp.internals.unregisterNodeAgent('kata-remote');
    await eventually(() => (getPod(cp, 'peer').status as JsonObject).phase === 'Running', {
      what: 'kubelet takes over',
    });
  });

  test('nodes added, made NotReady and removed from code', async () => {
    const name = await cp.internals.nodes.add();
    assert.equal(name, 'node-3');
    await eventually(() => lease('node-3'), { what: 'lease of node-3' });
    await cp.internals.nodes.setReady('node-3', false);
    // Heartbeats keep the NotReady status they find.
    await new Promise((r) => setTimeout(r, 700));
    const ready = (node('node-3').status as { conditions: JsonObject[] }).conditions.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    await createPod(cp, 'on-3', { nodeSelector: { 'kubernetes.io/hostname': 'node-3' } });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((getPod(cp, 'on-3').spec as JsonObject).nodeName, undefined);
    await cp.internals.nodes.setReady('node-3', true);
    assert.equal(await boundNode(cp, 'on-3'), 'node-3');
    await eventually(() => (getPod(cp, 'on-3').status as JsonObject).phase === 'Running');
    await cp.internals.nodes.remove('node-3');
    // Pod GC removes its pods; the garbage collector removes its Lease.
    await eventually(() => !cp.internals.store.getStored(defs(cp).pods, 'default', 'on-3'), { what: 'pod GC' });
    await eventually(() => !lease('node-3'), { what: 'lease GC' });
    assert.deepEqual(cp.internals.nodes.list().sort(), ['node-1', 'node-2']);
  });

  test('a Node created through the API with peerpods.io/simulated=true is adopted', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'extra', labels: { 'peerpods.io/simulated': 'true' } },
    });
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: manifest });
    assert.equal(r.code, 0, r.stderr);
    await eventually(() => {
      const c = ((node('extra').status as { conditions?: JsonObject[] }).conditions ?? []).find(
        (x) => x.type === 'Ready',
      );
      return c?.status === 'True';
    });
    await eventually(() => lease('extra'));
    assert.ok(cp.internals.nodes.list().includes('extra'));
  });

  test('an adopted Node that already advertises an extended resource still gets its cpu, memory and pods', async () => {
    // The PeerPodConfig controller may patch kata.peerpods.io/vm onto a node before its kubelet
    // registers; the kubelet's own resources are added beside it, as a registering kubelet does.
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'extended', labels: { 'peerpods.io/simulated': 'true' } },
      status: { capacity: { 'example.com/vm': '2' }, allocatable: { 'example.com/vm': '2' } },
    });
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: manifest });
    assert.equal(r.code, 0, r.stderr);
    await eventually(() => {
      const capacity = ((node('extended').status ?? {}) as { capacity?: Record<string, string> }).capacity ?? {};
      return capacity.pods !== undefined && capacity.cpu !== undefined && capacity.memory !== undefined;
    });
    const status = node('extended').status as { capacity: Record<string, string>; allocatable: Record<string, string> };
    assert.equal(status.capacity['example.com/vm'], '2');
    assert.equal(status.allocatable['example.com/vm'], '2');
    assert.ok(status.allocatable.pods);
  });
});
