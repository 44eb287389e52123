// The node lifecycle controller with shortened timings, seen through kubectl: a Node nobody
// reports for gets Unknown conditions (NodeStatusNeverUpdated) and the unreachable taints; pods
// on it that do not tolerate them for ever are evicted after their tolerationSeconds; a simulated
// node whose kubelet stops goes NodeStatusUnknown and recovers when it restarts.
// Texts: pkg/controller/nodelifecycle/node_lifecycle_controller.go (tryUpdateNodeHealth) and
// pkg/controller/tainteviction/taint_eviction.go (addConditionAndDeletePod, emitPodDeletionEvent).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
}
interface Node {
  metadata: { creationTimestamp: string };
  spec: { taints?: Array<{ key: string; effect: string; timeAdded?: string }> };
  status: { conditions?: Condition[] };
}
interface Pod {
  metadata: { deletionTimestamp?: string };
  spec: { tolerations?: Array<Record<string, unknown>> };
  status: { conditions?: Array<Condition & { lastTransitionTime?: string }> };
}

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({
    nodes: 1,
    simulatedNodes: { heartbeatIntervalMs: 250 },
    nodeLifecycle: { nodeMonitorPeriodMs: 200, nodeMonitorGracePeriodMs: 2500, nodeStartupGracePeriodMs: 4000 },
    defaultNotReadyTolerationSeconds: 2,
    defaultUnreachableTolerationSeconds: 2,
  });
});
after(async () => {
  await cp?.stop();
});

const k = (args: string[], input?: string) => kubectl(cp.kubeconfigPath, args, { version: '1.33', input });
async function get<T>(kind: string, name: string): Promise<T> {
  const r = await k(['get', kind, name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as T;
}
const condition = (node: Node, type: string): Condition | undefined =>
  node.status.conditions?.find((c) => c.type === type);
const taintKeys = (node: Node): string[] => (node.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const UNREACHABLE = ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule'];

const pod = (name: string, tolerations: unknown[]) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'silent', tolerations, containers: [{ name: 'c', image: 'busybox' }] },
  });

test('a Node no kubelet reports for turns Unknown (NodeStatusNeverUpdated) and unreachable; pods are evicted by their tolerations', async () => {
  let r = await k(
    ['create', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'silent' } }),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    condition(await get<Node>('node', 'silent'), 'Ready'),
    undefined,
    'no conditions before the start-up grace',
  );
  // Defaulted tolerations of 2 s; a forever toleration; a toleration of 4 s.
  for (const [name, tolerations] of [
    ['defaulted', []],
    ['forever', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]],
    [
      'later',
      [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 4 }],
    ],
  ] as const) {
    r = await k(['create', '-f', '-'], pod(name, [...tolerations]));
    assert.equal(r.code, 0, r.stderr);
  }

  const node = (await eventually(
    async () => {
      const n = await get<Node>('node', 'silent');
      return n.status.conditions?.length === 4 && taintKeys(n).length === 2 ? n : undefined;
    },
    { timeoutMs: 15_000, what: 'Unknown conditions and unreachable taints' },
  ))!;
  for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']) {
    const c = condition(node, type)!;
    assert.equal(c.status, 'Unknown', type);
    assert.equal(c.reason, 'NodeStatusNeverUpdated', type);
    assert.equal(c.message, 'Kubelet never posted node status.', type);
    // Never heard from: the heartbeat is the node's creation.
    assert.equal(c.lastHeartbeatTime, node.metadata.creationTimestamp, type);
  }
  assert.deepEqual(taintKeys(node), UNREACHABLE);
  assert.ok(node.spec.taints!.find((t) => t.effect === 'NoExecute')!.timeAdded);
  r = await k(['get', 'node', 'silent']);
  assert.match(r.stdout, /silent\s+NotReady\s/);

  const evicted = (await eventually(
    async () => {
      const p = await get<Pod>('pod', 'defaulted');
      return p.metadata.deletionTimestamp ? p : undefined;
    },
    { timeoutMs: 15_000, what: 'the pod with the default 2 s tolerations evicted' },
  ))!;
  const disruption = evicted.status.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.equal(disruption?.status, 'True');
  assert.equal(disruption?.reason, 'DeletionByTaintManager');
  assert.equal(disruption?.message, 'Taint manager: deleting due to NoExecute taint');
  await eventually(async () => (await get<Pod>('pod', 'later')).metadata.deletionTimestamp, {
    timeoutMs: 15_000,
    what: 'the pod tolerating 4 s evicted',
  });
  assert.equal((await get<Pod>('pod', 'forever')).metadata.deletionTimestamp, undefined, 'a forever toleration stays');
  r = await k(['get', 'events', '--field-selector', 'involvedObject.name=defaulted', '-o', 'json']);
  const events = (JSON.parse(r.stdout) as { items: Array<{ reason: string; message: string; source: unknown }> }).items;
  const eviction = events.find((e) => e.reason === 'TaintManagerEviction');
  assert.equal(eviction?.message, 'Marking for deletion Pod default/defaulted');
});

test('a simulated node whose kubelet stops goes NodeStatusUnknown, keeps pods away, and recovers', async () => {
  const ready = await get<Node>('node', 'node-1');
  assert.equal(condition(ready, 'Ready')?.status, 'True');
  await cp.internals.nodes.setKubeletRunning('node-1', false);
  const silent = (await eventually(
    async () => {
      const n = await get<Node>('node', 'node-1');
      return condition(n, 'Ready')?.status === 'Unknown' && taintKeys(n).length === 2 ? n : undefined;
    },
    { timeoutMs: 15_000, what: 'node-1 Unknown' },
  ))!;
  for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']) {
    const c = condition(silent, type)!;
    assert.equal(c.status, 'Unknown', type);
    assert.equal(c.reason, 'NodeStatusUnknown', type);
    assert.equal(c.message, 'Kubelet stopped posting node status.', type);
  }
  assert.deepEqual(taintKeys(silent), UNREACHABLE);

  // The scheduler reads the taints: no node takes a new pod.
  const r = await k(['run', 'waiting', '--image=busybox']);
  assert.equal(r.code, 0, r.stderr);
  await eventually(
    async () => {
      const out = await k(['get', 'events', '--field-selector', 'involvedObject.name=waiting,reason=FailedScheduling']);
      return out.stdout.includes('untolerated taint {node.kubernetes.io/unreachable: }');
    },
    { timeoutMs: 15_000, what: 'FailedScheduling for the unreachable taint' },
  );

  await cp.internals.nodes.setKubeletRunning('node-1', true);
  const back = (await eventually(
    async () => {
      const n = await get<Node>('node', 'node-1');
      return condition(n, 'Ready')?.status === 'True' && taintKeys(n).length === 0 ? n : undefined;
    },
    { timeoutMs: 15_000, what: 'node-1 Ready again, taints gone' },
  ))!;
  assert.equal(condition(back, 'Ready')?.reason, 'KubeletReady');
  assert.equal(condition(back, 'MemoryPressure')?.status, 'False');
  await eventually(
    async () => (await k(['get', 'pod', 'waiting', '-o', 'jsonpath={.spec.nodeName}'])).stdout === 'node-1',
    {
      timeoutMs: 20_000,
      what: 'the waiting pod scheduled on the recovered node',
    },
  );
});
