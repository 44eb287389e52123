// First contact: kubectl and HTTPS basics against a fresh control plane.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${cp.url}${path}`, { ca: cp.caPem, headers }, (r) => {
      let b = '';
      r.on('data', (d) => (b += d));
      r.on('end', () => resolve({ code: r.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    req.end();
  });
}

// kube-apiserver serves requests without credentials as system:anonymous (--anonymous-auth
// defaults to true); RBAC then refuses them (responsewriters/errors.go, api/errors NewForbidden).
test('a request without the token is anonymous and gets 403 with a Status body', async () => {
  const r = await get('/api/v1/namespaces');
  assert.equal(r.code, 403);
  assert.deepEqual(JSON.parse(r.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    reason: 'Forbidden',
    details: { kind: 'namespaces' },
    code: 403,
  });
});

test('a request with a wrong token gets 401 with a Status body', async () => {
  const r = await get('/api/v1/namespaces', { Authorization: 'Bearer not-the-token' });
  assert.equal(r.code, 401);
  assert.equal(JSON.parse(r.body).reason, 'Unauthorized');
});

test('kubectl lists the bootstrap namespaces', async () => {
  const r = await kubectl(cp.kubeconfigPath, ['get', 'namespaces', '-o', 'name']);
  assert.equal(r.code, 0, r.stderr);
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
    assert.match(r.stdout, new RegExp(`namespace/${ns}\\b`));
});

test('kubectl create, get, label, patch, delete a configmap', async () => {
  let r = await kubectl(cp.kubeconfigPath, ['create', 'configmap', 'demo', '--from-literal=a=1']);
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(cp.kubeconfigPath, ['label', 'configmap', 'demo', 'tier=web']);
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(cp.kubeconfigPath, ['patch', 'configmap', 'demo', '-p', '{"data":{"b":"2"}}']);
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(cp.kubeconfigPath, ['get', 'configmap', 'demo', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const cm = JSON.parse(r.stdout);
  assert.deepEqual(cm.data, { a: '1', b: '2' });
  assert.equal(cm.metadata.labels.tier, 'web');
  r = await kubectl(cp.kubeconfigPath, ['delete', 'configmap', 'demo']);
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(cp.kubeconfigPath, ['get', 'configmap', 'demo']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /NotFound|not found/);
});
