// The node drainer's pure parts as tables: which pods a pass evicts, the timeout, conditions, and
// drainNode against a stub workload client (so 404/429/errors on the eviction are exact).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, Nodes, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject, ResourceType } from '../../../src/runtime/index.ts';
import { Annotations } from '../../../src/kvm/api/index.ts';
import type { DrainerConfig, DrainerConfigStatus } from '../../../src/kvm/api/index.ts';
import {
  drainNode,
  evictionPlan,
  timeoutPass,
  withCondition,
  type WorkloadClient,
} from '../../../src/kvm/nodedrainer/index.ts';
import type { Pod } from '../../../src/kvm/pods.ts';

const T0 = Date.parse('2024-05-01T10:00:00Z');
const TIMEOUT = 10 * 60_000;

function pod(
  name: string,
  o: { ns?: string; owner?: string; mirror?: boolean; phase?: string; deleting?: boolean } = {},
): Pod {
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'default',
      ...(o.owner
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: o.owner, name: 'o', uid: 'u', controller: true }] }
        : {}),
      ...(o.mirror ? { annotations: { [Annotations.configMirror]: 'abc' } } : {}),
      ...(o.deleting ? { deletionTimestamp: '2024-05-01T10:00:00Z' } : {}),
    },
    status: { phase: (o.phase ?? 'Running') as 'Running' },
  };
}

function dc(status?: DrainerConfigStatus, createdAt = T0): DrainerConfig {
  return {
    metadata: { name: 'worker-w1-a', namespace: 'abc12', creationTimestamp: new Date(createdAt).toISOString() },
    spec: { guest: { cluster: { api: { endpoint: 'api' }, id: 'abc12' }, node: { name: 'worker-w1-a' } } },
    ...(status ? { status } : {}),
  };
}

describe('node drainer: eviction plan', () => {
  const names = (ps: Pod[]) => ps.map((p) => p.metadata.name).join(',');
  const cases: { name: string; pods: Pod[]; evict: string; waiting: string }[] = [
    { name: 'nothing on the node', pods: [], evict: '', waiting: '' },
    { name: 'a plain pod is evicted', pods: [pod('a')], evict: 'a', waiting: '' },
    { name: 'a ReplicaSet pod is evicted', pods: [pod('a', { owner: 'ReplicaSet' })], evict: 'a', waiting: '' },
    { name: 'a DaemonSet pod is left alone', pods: [pod('ds', { owner: 'DaemonSet' })], evict: '', waiting: '' },
    { name: 'a mirror (static) pod is left alone', pods: [pod('static', { mirror: true })], evict: '', waiting: '' },
    {
      name: 'finished pods hold nothing',
      pods: [pod('done', { phase: 'Succeeded' }), pod('failed', { phase: 'Failed' })],
      evict: '',
      waiting: '',
    },
    {
      name: 'a terminating pod is waited for, not evicted again',
      pods: [pod('t', { deleting: true })],
      evict: '',
      waiting: 't',
    },
    {
      name: 'kube-system waits while user pods remain',
      pods: [pod('dns', { ns: 'kube-system' }), pod('app')],
      evict: 'app',
      waiting: 'dns',
    },
    {
      name: 'kube-system waits for a terminating user pod too',
      pods: [pod('dns', { ns: 'kube-system' }), pod('app', { deleting: true })],
      evict: '',
      waiting: 'dns,app',
    },
    {
      name: 'kube-system goes once only DaemonSet and static pods are left',
      pods: [
        pod('dns', { ns: 'kube-system' }),
        pod('ds', { owner: 'DaemonSet' }),
        pod('api', { ns: 'kube-system', mirror: true }),
      ],
      evict: 'dns',
      waiting: '',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const plan = evictionPlan(tc.pods);
      assert.equal(names(plan.evict), tc.evict);
      assert.equal(names(plan.waiting), tc.waiting);
    });
  }
});

describe('node drainer: timeout and conditions', () => {
  const cases = [
    { name: 'just created: no timeout', now: T0, timedOut: false },
    { name: 'one second before the deadline: no timeout', now: T0 + TIMEOUT - 1000, timedOut: false },
    { name: 'at the deadline: timeout', now: T0 + TIMEOUT, timedOut: true },
    { name: 'long after: timeout', now: T0 + 3 * TIMEOUT, timedOut: true },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const p = timeoutPass(dc({ remainingPods: 2 }), tc.now, TIMEOUT);
      assert.equal(p !== undefined, tc.timedOut);
      if (!p) return;
      assert.equal(p.finished, true);
      assert.equal(p.changed, true);
      const c = p.status.conditions?.[0];
      assert.equal(c?.type, 'Timeout');
      assert.equal(c?.status, 'True');
      assert.equal(c?.reason, 'DrainTimeout');
      assert.match(c?.message ?? '', /2 pod\(s\) left/);
      assert.equal(p.status.remainingPods, 2);
    });
  }
  it('the transition time stays when the condition already held; the heartbeat moves', () => {
    const first = withCondition(undefined, { type: 'Drained', reason: 'R', message: 'm' }, T0);
    const again = withCondition(first, { type: 'Drained', reason: 'R', message: 'm' }, T0 + 5000);
    assert.equal(again.conditions?.[0].lastTransitionTime, '2024-05-01T10:00:00Z');
    assert.equal(again.conditions?.[0].lastHeartbeatTime, '2024-05-01T10:00:05Z');
    assert.equal(again.conditions?.length, 1);
  });
});

/** A workload client over fixed objects: records writes, answers evictions from `evictions`. */
function stubWorkload(o: { node?: KubeObject; pods?: Pod[]; evictions?: Record<string, number> }) {
  const calls: string[] = [];
  const client: WorkloadClient = {
    async get<T extends KubeObject>(type: ResourceType, name: string): Promise<T> {
      calls.push(`get ${type.kind} ${name}`);
      if (!o.node) throw new ApiError(404, 'NotFound', `nodes "${name}" not found`);
      return structuredClone(o.node) as T;
    },
    async list<T extends KubeObject>(type: ResourceType, opts: { fieldSelector?: string } = {}) {
      calls.push(`list ${type.kind} ${opts.fieldSelector}`);
      return { items: (o.pods ?? []) as unknown as T[], resourceVersion: '1' };
    },
    async patch<T extends KubeObject>(type: ResourceType, name: string, _ns: unknown, body: unknown, pt: string) {
      calls.push(`patch ${type.kind} ${name} ${pt} ${JSON.stringify(body)}`);
      return { metadata: { name } } as T;
    },
    async request(method: string, path: string, body?: unknown) {
      calls.push(`${method} ${path} ${JSON.stringify(body)}`);
      const name = path.split('/')[6];
      const code = o.evictions?.[name] ?? 201;
      if (code >= 400)
        throw new ApiError(code, code === 404 ? 'NotFound' : code === 429 ? 'TooManyRequests' : 'InternalError', 'x');
      return { statusCode: code, headers: {}, body: {} };
    },
  };
  return { client, calls };
}

describe('node drainer: one pass against a stub workload API', () => {
  const node = (unschedulable = false): KubeObject => ({ metadata: { name: 'worker-w1-a' }, spec: { unschedulable } });
  const run = (d: DrainerConfig, wc: WorkloadClient, now = T0 + 1000) =>
    drainNode({ dc: d, wc, now, timeoutMs: TIMEOUT, log: silentLogger() });

  it('already finished: no API call, nothing to write, no requeue', async () => {
    const stub = stubWorkload({ node: node() });
    const p = await run(dc(withCondition(undefined, { type: 'Drained', reason: 'r', message: '' }, T0)), stub.client);
    assert.deepEqual([p.finished, p.changed, p.requeueAfterMs, stub.calls], [true, false, undefined, []]);
  });
  it('timed out: Timeout before any API call', async () => {
    const stub = stubWorkload({ node: node() });
    const p = await run(dc(), stub.client, T0 + TIMEOUT);
    assert.equal(p.status.conditions?.[0].type, 'Timeout');
    assert.deepEqual(stub.calls, []);
  });
  it('node not found: Drained (NodeNotFound)', async () => {
    const p = await run(dc(), stubWorkload({}).client);
    assert.deepEqual(
      [p.finished, p.status.conditions?.[0].type, p.status.conditions?.[0].reason],
      [true, 'Drained', 'NodeNotFound'],
    );
  });
  it('cordons with a merge patch, lists by node, evicts via policy/v1, counts and requeues', async () => {
    const stub = stubWorkload({
      node: node(),
      pods: [pod('app'), pod('gone'), pod('pdb'), pod('dns', { ns: 'kube-system' })],
      evictions: { gone: 404, pdb: 429 },
    });
    const p = await run(dc({ evictedPods: 3 }), stub.client);
    assert.deepEqual(stub.calls.slice(0, 3), [
      'get Node worker-w1-a',
      `patch ${Nodes.kind} worker-w1-a merge {"spec":{"unschedulable":true}}`,
      'list Pod spec.nodeName=worker-w1-a',
    ]);
    assert.equal(
      stub.calls[3],
      'POST /api/v1/namespaces/default/pods/app/eviction {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"app","namespace":"default"}}',
    );
    assert.equal(stub.calls.length, 6, 'kube-system not evicted while user pods remain');
    assert.deepEqual(p.evicted, ['default/app']);
    assert.deepEqual(p.blocked, ['default/pdb']);
    assert.deepEqual([p.finished, p.changed, p.status.evictedPods, p.status.remainingPods], [false, true, 4, 3]);
    assert.equal(p.status.conditions, undefined);
    assert.equal(p.requeueAfterMs, 1000);
  });
  it('an already cordoned node is not patched again; nothing changed: nothing to write', async () => {
    const stub = stubWorkload({ node: node(true), pods: [pod('pdb')], evictions: { pdb: 429 } });
    const p = await run(dc({ evictedPods: 0, remainingPods: 1 }), stub.client);
    assert.equal(stub.calls.filter((c) => c.startsWith('patch')).length, 0);
    assert.deepEqual([p.finished, p.changed], [false, false]);
  });
  it('the requeue never overshoots the deadline', async () => {
    const stub = stubWorkload({ node: node(true), pods: [pod('pdb')], evictions: { pdb: 429 } });
    const p = await run(dc(), stub.client, T0 + TIMEOUT - 300);
    assert.equal(p.requeueAfterMs, 300);
  });
  it('only DaemonSet and static pods left: Drained (NodeDrained)', async () => {
    const stub = stubWorkload({
      node: node(true),
      pods: [pod('ds', { owner: 'DaemonSet' }), pod('s', { mirror: true })],
    });
    const p = await run(dc({ evictedPods: 2 }), stub.client);
    assert.deepEqual(
      [p.finished, p.status.conditions?.[0].reason, p.status.evictedPods, p.status.remainingPods],
      [true, 'NodeDrained', 2, 0],
    );
  });
  it('any other eviction error fails the pass (the caller decides: unreachable or real)', async () => {
    const stub = stubWorkload({ node: node(true), pods: [pod('x')], evictions: { x: 500 } });
    await assert.rejects(run(dc(), stub.client), (e: unknown) => (e as ApiError).code === 500);
  });
});
