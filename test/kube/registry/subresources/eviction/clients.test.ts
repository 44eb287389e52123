// Evictions through the client libraries operators use: @kubernetes/client-node 1.x
// (createNamespacedPodEviction) and the official Python client (create_namespaced_pod_eviction).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { eventually, startTestCluster, type TestCluster } from '../../../../helpers/control-plane.ts';
import { runPython } from '../../../../helpers/python.ts';
import { createBudget, createNamespace, findPod, runningPods } from './helpers.ts';

let cp: TestCluster;
let core: CoreV1Api;
before(async () => {
  cp = await startTestCluster({ nodes: 1 });
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
after(() => cp.stop());

test('client-node: eviction succeeds, then 429 once the budget is used up', async () => {
  const ns = 'client-node';
  await createNamespace(cp, ns);
  await runningPods(cp, ns, ['a', 'b'], { nodeName: 'node-1', labels: { app: 'ab' } });
  await createBudget(cp, ns, 'ab', { minAvailable: 1, selector: { matchLabels: { app: 'ab' } } });
  await core.createNamespacedPodEviction({
    name: 'a',
    namespace: ns,
    body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a', namespace: ns } },
  });
  await eventually(() => findPod(cp, ns, 'a') === undefined, { what: 'a deleted', timeoutMs: 15_000 });
  try {
    await core.createNamespacedPodEviction({
      name: 'b',
      namespace: ns,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'b', namespace: ns } },
    });
    assert.fail('eviction of b succeeded');
  } catch (e) {
    assert.ok(e instanceof ApiException, String(e));
    assert.equal(e.code, 429);
    const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as {
      reason: string;
      details: { causes: Array<{ reason: string; message: string }> };
    };
    assert.equal(body.reason, 'TooManyRequests');
    assert.deepEqual(body.details.causes, [
      { reason: 'DisruptionBudget', message: 'The disruption budget ab needs 1 healthy pods and has 1 currently' },
    ]);
  }
  assert.ok(findPod(cp, ns, 'b'));
});

test('python client: create_namespaced_pod_eviction, ApiException 429/404', async () => {
  const ns = 'python';
  await createNamespace(cp, ns);
  await runningPods(cp, ns, ['a', 'b'], { nodeName: 'node-1', labels: { app: 'ab' } });
  await createBudget(cp, ns, 'ab', { minAvailable: 1, selector: { matchLabels: { app: 'ab' } } });
  const script = `
import json, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(sys.argv[1])
v1 = client.CoreV1Api()
ns = ${JSON.stringify(ns)}
def evict(name):
    body = client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace=ns),
                              delete_options=client.V1DeleteOptions(grace_period_seconds=0))
    try:
        v1.create_namespaced_pod_eviction(name, ns, body)
        return {"code": 201}
    except ApiException as e:
        return {"code": e.status, "body": json.loads(e.body)}
print(json.dumps({"a": evict("a"), "b": evict("b"), "ghost": evict("ghost")}))
`;
  const r = await runPython(cp.kubeconfigPath, script);
  assert.equal(r.code, 0, r.stderr);
  const out = r.json() as Record<string, { code: number; body?: { reason: string; message: string } }>;
  assert.equal(out.a.code, 201, JSON.stringify(out.a));
  assert.equal(out.b.code, 429, JSON.stringify(out.b));
  assert.equal(out.b.body?.reason, 'TooManyRequests');
  assert.equal(out.ghost.code, 404, JSON.stringify(out.ghost));
  assert.equal(findPod(cp, ns, 'a'), undefined);
  assert.ok(findPod(cp, ns, 'b'));
});
