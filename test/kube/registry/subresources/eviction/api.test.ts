// POST pods/{name}/eviction over raw HTTPS: every answer kube-apiserver's EvictionREST gives
// (201, 400, 404, 405, 409, 429 with its DisruptionBudget cause, 500 for several budgets),
// delete options, dry run, discovery and OpenAPI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../../src/apimachinery/meta/index.ts';
import {
  call,
  createBudget,
  createNamespace,
  createPod,
  deleteBudget,
  evict,
  eviction,
  evictionPath,
  findPod,
  markUnready,
  runningPods,
} from './helpers.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 1 });
});
after(() => cp.stop());

const NODE = 'node-1';
/** A preStop hook keeps the simulated containers running for the whole grace period. */
/** Pods that stay Pending: no node matches. */
const NOWHERE = { nodeSelector: { nowhere: 'true' } };
const SLOW_STOP = {
  containers: [{ name: 'c', image: 'nginx', lifecycle: { preStop: { exec: { command: ['sleep', '1'] } } } }],
};
let nsCounter = 0;
async function freshNamespace(): Promise<string> {
  const ns = `evict-${++nsCounter}`;
  await createNamespace(cp, ns);
  return ns;
}

function causes(r: { json: JsonObject }): JsonObject[] {
  return ((r.json.details as JsonObject | undefined)?.causes ?? []) as JsonObject[];
}

describe('success', () => {
  test('evicting a running pod without a budget: 201 Success, then the kubelet finishes it', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE });
    const r = await evict(cp, ns, 'p');
    assert.equal(r.code, 201, r.text);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    // Graceful: the pod is terminating at once and gone once the kubelet has stopped it.
    const pod = findPod(cp, ns, 'p');
    assert.ok(pod === undefined || (pod.metadata as JsonObject).deletionTimestamp, 'pod not terminating');
    await eventually(() => findPod(cp, ns, 'p') === undefined, { what: 'pod deleted', timeoutMs: 15_000 });
  });

  test('policy/v1beta1 bodies and bodies without apiVersion/kind are accepted', async () => {
    const ns = await freshNamespace();
    await createPod(cp, ns, 'a', { spec: NOWHERE });
    await createPod(cp, ns, 'b', { spec: NOWHERE });
    const beta = await call(cp, 'POST', evictionPath(ns, 'a'), eviction(ns, 'a', undefined, 'policy/v1beta1'));
    assert.equal(beta.code, 201, beta.text);
    const bare = await call(cp, 'POST', evictionPath(ns, 'b'), { metadata: { name: 'b' } });
    assert.equal(bare.code, 201, bare.text);
    assert.equal(findPod(cp, ns, 'a'), undefined);
    assert.equal(findPod(cp, ns, 'b'), undefined);
  });

  test('deleteOptions: gracePeriodSeconds 0 removes a running pod at once', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE });
    const r = await evict(cp, ns, 'p', { gracePeriodSeconds: 0 });
    assert.equal(r.code, 201, r.text);
    assert.equal(findPod(cp, ns, 'p'), undefined);
  });

  test('deleteOptions: a grace period is kept on the terminating pod', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, spec: SLOW_STOP });
    const r = await evict(cp, ns, 'p', { gracePeriodSeconds: 7 });
    assert.equal(r.code, 201, r.text);
    const meta = findPod(cp, ns, 'p')?.metadata as JsonObject;
    assert.equal(meta.deletionGracePeriodSeconds, 7);
    await evict(cp, ns, 'p', { gracePeriodSeconds: 0 });
    assert.equal(findPod(cp, ns, 'p'), undefined);
  });

  test('deleteOptions: preconditions are checked (409 on a stale uid or resourceVersion)', async () => {
    const ns = await freshNamespace();
    const pod = await createPod(cp, ns, 'p', { spec: NOWHERE });
    const meta = pod.metadata as JsonObject;
    const wrongUid = await evict(cp, ns, 'p', { preconditions: { uid: 'not-the-uid' } });
    assert.equal(wrongUid.code, 409, wrongUid.text);
    assert.equal(wrongUid.json.reason, 'Conflict');
    assert.match(String(wrongUid.json.message), /Precondition failed: UID in precondition: not-the-uid/);
    const wrongRv = await evict(cp, ns, 'p', { preconditions: { resourceVersion: '1' } });
    assert.equal(wrongRv.code, 409, wrongRv.text);
    assert.ok(findPod(cp, ns, 'p'), 'pod deleted despite failed precondition');
    const current = findPod(cp, ns, 'p')!.metadata as JsonObject;
    const ok = await evict(cp, ns, 'p', {
      preconditions: { uid: meta.uid, resourceVersion: current.resourceVersion },
    });
    assert.equal(ok.code, 201, ok.text);
    assert.equal(findPod(cp, ns, 'p'), undefined);
  });

  test('dry run (query or deleteOptions.dryRun) leaves the pod', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE });
    const q = await call(cp, 'POST', `${evictionPath(ns, 'p')}?dryRun=All`, eviction(ns, 'p'));
    assert.equal(q.code, 201, q.text);
    const body = await evict(cp, ns, 'p', { dryRun: ['All'] });
    assert.equal(body.code, 201, body.text);
    const pod = findPod(cp, ns, 'p');
    assert.ok(pod, 'pod gone');
    assert.equal((pod.metadata as JsonObject).deletionTimestamp, undefined);
  });

  test('a pod already being deleted: 201', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, labels: { app: 'del' }, spec: SLOW_STOP });
    await createBudget(cp, ns, 'strict', { minAvailable: 1, selector: { matchLabels: { app: 'del' } } });
    assert.equal((await evict(cp, ns, 'p')).code, 429);
    const del = await call(cp, 'DELETE', `/api/v1/namespaces/${ns}/pods/p`, { gracePeriodSeconds: 20 });
    assert.equal(del.code, 200, del.text);
    const r = await evict(cp, ns, 'p');
    assert.equal(r.code, 201, r.text);
    assert.equal(r.json.status, 'Success');
    await evict(cp, ns, 'p', { gracePeriodSeconds: 0 });
  });
});

describe('request errors', () => {
  test('400 when the name in the body differs from the URL', async () => {
    const ns = await freshNamespace();
    await createPod(cp, ns, 'p');
    const r = await call(cp, 'POST', evictionPath(ns, 'p'), eviction(ns, 'other'));
    assert.equal(r.code, 400, r.text);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.reason, 'BadRequest');
    assert.equal(r.json.message, 'name in URL does not match name in Eviction object');
    const noName = await call(cp, 'POST', evictionPath(ns, 'p'), { apiVersion: 'policy/v1', kind: 'Eviction' });
    assert.equal(noName.code, 400, noName.text);
    assert.ok(findPod(cp, ns, 'p'), 'pod deleted by a bad request');
  });

  test('400 for a body of another kind or API version, or a namespace that differs; 422 for bad deleteOptions', async () => {
    const ns = await freshNamespace();
    await createPod(cp, ns, 'p');
    const wrongVersion = await call(cp, 'POST', evictionPath(ns, 'p'), { ...eviction(ns, 'p'), apiVersion: 'v1' });
    assert.equal(wrongVersion.code, 400, wrongVersion.text);
    assert.equal(
      wrongVersion.json.message,
      'the API version in the data (v1) does not match the expected API version (policy/v1)',
    );
    const wrongKind = await call(cp, 'POST', evictionPath(ns, 'p'), { ...eviction(ns, 'p'), kind: 'Pod' });
    assert.equal(wrongKind.code, 400, wrongKind.text);
    assert.match(String(wrongKind.json.message), /cannot be handled as a Eviction/);
    const notObject = await call(cp, 'POST', evictionPath(ns, 'p'), ['x']);
    assert.equal(notObject.code, 400, notObject.text);
    const otherNs = await call(cp, 'POST', evictionPath(ns, 'p'), eviction('elsewhere', 'p'));
    assert.equal(otherNs.code, 400, otherNs.text);
    assert.match(String(otherNs.json.message), /namespace of the provided object does not match/);
    // The pod's deletion validates the DeleteOptions (registry/rest/delete.go BeforeDelete):
    // a 422 Invalid DeleteOptions.meta.k8s.io, as for a DELETE.
    const badPolicy = await evict(cp, ns, 'p', { propagationPolicy: 'Sideways' });
    assert.equal(badPolicy.code, 422, badPolicy.text);
    assert.equal(badPolicy.json.reason, 'Invalid');
    assert.deepEqual(badPolicy.json.details, {
      group: 'meta.k8s.io',
      kind: 'DeleteOptions',
      causes: [
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
          field: 'propagationPolicy',
        },
      ],
    });
    assert.ok(findPod(cp, ns, 'p'), 'pod deleted by a bad request');
  });

  test('404 for a pod that does not exist', async () => {
    const ns = await freshNamespace();
    const r = await evict(cp, ns, 'ghost');
    assert.equal(r.code, 404, r.text);
    assert.equal(r.json.reason, 'NotFound');
    assert.equal(r.json.message, 'pods "ghost" not found');
    assert.deepEqual(r.json.details, { name: 'ghost', kind: 'pods' });
  });

  test('405 for methods other than POST', async () => {
    const ns = await freshNamespace();
    await createPod(cp, ns, 'p');
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await call(cp, method, evictionPath(ns, 'p'), method === 'GET' ? undefined : eviction(ns, 'p'));
      assert.equal(r.code, 405, `${method}: ${r.text}`);
    }
    assert.ok(findPod(cp, ns, 'p'));
  });
});

describe('PodDisruptionBudgets', () => {
  test('429 TooManyRequests with a DisruptionBudget cause when no disruption is allowed', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['web-0', 'web-1'], { nodeName: NODE, labels: { app: 'web' } });
    await createBudget(cp, ns, 'web-pdb', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } });
    const r = await evict(cp, ns, 'web-0');
    assert.equal(r.code, 429, r.text);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.status, 'Failure');
    assert.equal(r.json.reason, 'TooManyRequests');
    assert.equal(r.json.code, 429);
    assert.equal(r.json.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(r.json.details, {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: 'The disruption budget web-pdb needs 2 healthy pods and has 2 currently',
        },
      ],
    });
    const pod = findPod(cp, ns, 'web-0');
    assert.ok(pod && !(pod.metadata as JsonObject).deletionTimestamp, 'pod evicted despite its budget');
  });

  test('the budget allows exactly the disruptions it has, one eviction at a time', async () => {
    const ns = await freshNamespace();
    const names = ['a', 'b', 'c'];
    await runningPods(cp, ns, names, { nodeName: NODE, labels: { app: 'trio' }, spec: SLOW_STOP });
    await createBudget(cp, ns, 'trio', { maxUnavailable: 1, selector: { matchLabels: { app: 'trio' } } });
    // Concurrent requests, as kubectl drain sends them: exactly one gets through.
    const replies = await Promise.all(names.map((n) => evict(cp, ns, n, { gracePeriodSeconds: 30 })));
    assert.deepEqual(replies.map((r) => r.code).sort(), [201, 429, 429], replies.map((r) => r.text).join('\n'));
    // The terminating pod is still expected but no longer healthy: 3 expected, 1 may be unavailable.
    const blocked = replies.find((r) => r.code === 429)!;
    assert.equal(
      causes(blocked)[0].message,
      'The disruption budget trio needs 2 healthy pods and has 2 currently',
      blocked.text,
    );
  });

  test('percentages of the expected pods round up, for minAvailable and maxUnavailable', async () => {
    const ns = await freshNamespace();
    const names = ['p0', 'p1', 'p2'];
    await runningPods(cp, ns, names, { nodeName: NODE, labels: { app: 'pct' }, spec: SLOW_STOP });
    // 3 expected: minAvailable 50% needs ceil(1.5) = 2, so one may go, not two.
    await createBudget(cp, ns, 'pct', { minAvailable: '50%', selector: { matchLabels: { app: 'pct' } } });
    assert.equal((await evict(cp, ns, 'p0', { gracePeriodSeconds: 30 })).code, 201);
    const second = await evict(cp, ns, 'p1', { gracePeriodSeconds: 30 });
    assert.equal(second.code, 429, second.text);
    assert.equal(causes(second)[0].message, 'The disruption budget pct needs 2 healthy pods and has 2 currently');
    await deleteBudget(cp, ns, 'pct');
    // maxUnavailable 34% of 3 rounds up to 2 unavailable: 1 healthy needed, so p1 may go too.
    await createBudget(cp, ns, 'pct2', { maxUnavailable: '34%', selector: { matchLabels: { app: 'pct' } } });
    assert.equal((await evict(cp, ns, 'p1', { gracePeriodSeconds: 30 })).code, 201);
    const last = await evict(cp, ns, 'p2', { gracePeriodSeconds: 30 });
    assert.equal(last.code, 429, last.text);
    assert.equal(causes(last)[0].message, 'The disruption budget pct2 needs 1 healthy pods and has 1 currently');
  });

  test('a budget without minAvailable or maxUnavailable allows no disruption', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, labels: { app: 'bare' } });
    await createBudget(cp, ns, 'bare', { selector: { matchLabels: { app: 'bare' } } });
    const r = await evict(cp, ns, 'p');
    assert.equal(r.code, 429, r.text);
    assert.equal(causes(r)[0].message, 'The disruption budget bare needs 0 healthy pods and has 1 currently');
  });

  test('a budget that does not select the pod, or has an empty selector, does not apply', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, labels: { app: 'x' } });
    await createBudget(cp, ns, 'other', { maxUnavailable: 0, selector: { matchLabels: { app: 'y' } } });
    await createBudget(cp, ns, 'empty', { maxUnavailable: 0, selector: {} });
    const elsewhere = await freshNamespace();
    await createBudget(cp, elsewhere, 'same-labels', { maxUnavailable: 0, selector: { matchLabels: { app: 'x' } } });
    const r = await evict(cp, ns, 'p', { gracePeriodSeconds: 0 });
    assert.equal(r.code, 201, r.text);
  });

  test('matchExpressions selectors apply', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, labels: { tier: 'db' } });
    await createBudget(cp, ns, 'expr', {
      maxUnavailable: 0,
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'cache'] }] },
    });
    const r = await evict(cp, ns, 'p');
    assert.equal(r.code, 429, r.text);
  });

  test('500 when more than one budget selects the pod', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, labels: { app: 'multi', tier: 'web' } });
    await createBudget(cp, ns, 'by-app', { maxUnavailable: 1, selector: { matchLabels: { app: 'multi' } } });
    await createBudget(cp, ns, 'by-tier', { maxUnavailable: 1, selector: { matchLabels: { tier: 'web' } } });
    const r = await evict(cp, ns, 'p');
    assert.equal(r.code, 500, r.text);
    assert.deepEqual(r.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    });
    assert.ok(findPod(cp, ns, 'p'));
  });

  test('pending and terminal pods are evicted without looking at budgets', async () => {
    const ns = await freshNamespace();
    // Pending: nothing can schedule it.
    await createPod(cp, ns, 'pending', { labels: { app: 'g' }, spec: NOWHERE });
    await runningPods(cp, ns, ['up'], { nodeName: NODE, labels: { app: 'g' } });
    await createBudget(cp, ns, 'g', { minAvailable: 5, selector: { matchLabels: { app: 'g' } } });
    assert.equal((findPod(cp, ns, 'pending')?.status as JsonObject | undefined)?.phase, 'Pending');
    const r = await evict(cp, ns, 'pending');
    assert.equal(r.code, 201, r.text);
    assert.equal(findPod(cp, ns, 'pending'), undefined);
    const blocked = await evict(cp, ns, 'up');
    assert.equal(blocked.code, 429, blocked.text);
    assert.equal(causes(blocked)[0].message, 'The disruption budget g needs 5 healthy pods and has 1 currently');
  });

  test('an unready running pod may go while the budget is met, not when it is not', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['ready-0', 'ready-1', 'sick'], { nodeName: NODE, labels: { app: 'r' } });
    await markUnready(cp, ns, 'sick');
    await createBudget(cp, ns, 'r', { minAvailable: 2, selector: { matchLabels: { app: 'r' } } });
    // 2 healthy >= 2 desired: the unready pod disrupts nothing.
    const sick = await evict(cp, ns, 'sick', { gracePeriodSeconds: 0 });
    assert.equal(sick.code, 201, sick.text);
    // The ready ones are what the budget protects.
    const ready = await evict(cp, ns, 'ready-0');
    assert.equal(ready.code, 429, ready.text);
    // With one of them unready too, the budget is not met: an unready pod is blocked as well.
    await markUnready(cp, ns, 'ready-1');
    const unmet = await evict(cp, ns, 'ready-1');
    assert.equal(unmet.code, 429, unmet.text);
    assert.equal(causes(unmet)[0].message, 'The disruption budget r needs 2 healthy pods and has 1 currently');
  });

  test('deleting the budget lets the eviction through', async () => {
    const ns = await freshNamespace();
    await runningPods(cp, ns, ['p'], { nodeName: NODE, labels: { app: 'solo' } });
    await createBudget(cp, ns, 'solo', { minAvailable: 1, selector: { matchLabels: { app: 'solo' } } });
    assert.equal((await evict(cp, ns, 'p')).code, 429);
    await deleteBudget(cp, ns, 'solo');
    assert.equal((await evict(cp, ns, 'p', { gracePeriodSeconds: 0 })).code, 201);
  });
});

describe('discovery and OpenAPI', () => {
  test('/api/v1 lists pods/eviction as policy/v1 Eviction with verb create', async () => {
    const r = await call(cp, 'GET', '/api/v1');
    assert.equal(r.code, 200);
    const entry = (r.json.resources as JsonObject[]).find((x) => x.name === 'pods/eviction');
    assert.deepEqual(entry, {
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
  });

  test('aggregated discovery lists the eviction subresource of pods', async () => {
    const r = await call(cp, 'GET', '/api', undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    assert.equal(r.code, 200, r.text);
    const core = (r.json.items as JsonObject[])[0];
    const v1 = (core.versions as JsonObject[]).find((v) => v.version === 'v1')!;
    const pods = (v1.resources as JsonObject[]).find((x) => x.resource === 'pods')!;
    const sub = (pods.subresources as JsonObject[]).find((s) => s.subresource === 'eviction');
    assert.deepEqual(sub, {
      subresource: 'eviction',
      responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      verbs: ['create'],
    });
  });

  test('OpenAPI v3 describes POST pods/{name}/eviction with the policy/v1 Eviction model', async () => {
    const r = await call(cp, 'GET', '/openapi/v3/api/v1');
    assert.equal(r.code, 200, r.text.slice(0, 200));
    const path = (r.json.paths as JsonObject)['/api/v1/namespaces/{namespace}/pods/{name}/eviction'] as JsonObject;
    assert.ok(path, 'no eviction path');
    const post = path.post as JsonObject;
    assert.equal(post.operationId, 'createCoreV1NamespacedPodEviction');
    assert.deepEqual(post['x-kubernetes-group-version-kind'], { group: 'policy', version: 'v1', kind: 'Eviction' });
    const schemas = (r.json.components as JsonObject).schemas as JsonObject;
    assert.deepEqual((schemas['io.k8s.api.policy.v1.Eviction'] as JsonObject)['x-kubernetes-group-version-kind'], [
      { group: 'policy', kind: 'Eviction', version: 'v1' },
    ]);
    assert.ok(!('get' in path), 'eviction has no GET');
  });
});
