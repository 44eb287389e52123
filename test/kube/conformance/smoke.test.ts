// First contact: kubectl and HTTPS basics against a fresh control plane.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

test('a request without the token gets 401 with a Status body', async () => {
  const { request } = await import('node:https');
  const body = await new Promise<{ code: number; body: string }>((resolve, reject) => {
    const req = request(`${cp.url}/api/v1/namespaces`, { ca: cp.caPem }, (r) => {
      let b = '';
      r.on('data', (d) => (b += d));
      r.on('end', () => resolve({ code: r.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(body.code, 401);
  assert.equal(JSON.parse(body.body).reason, 'Unauthorized');
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
