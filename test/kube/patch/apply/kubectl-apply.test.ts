// kubectl's apply flows end to end: client-side apply converging with strategic merge, and
// server-side apply with a field-manager conflict resolved by --force-conflicts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

const deployment = (image: string, sidecar = true) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: ${image}, ports: [{containerPort: 80}]}
${sidecar ? '      - {name: log, image: busybox:1.36}' : ''}
`;

for (const version of [undefined, '1.27']) {
  const label = version ?? 'dispatcher';
  test(`[${label}] client-side apply converges, changes a container, and removes one (strategic merge)`, async () => {
    const k = (args: string[], input?: string) => kubectl(cp.kubeconfigPath, args, { version, input });
    await k(['delete', 'deployment', 'web', '--ignore-not-found']);
    let r = await k(['apply', '-f', '-'], deployment('nginx:1.25'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment.apps\/web created/);
    r = await k(['apply', '-f', '-'], deployment('nginx:1.25'));
    assert.match(r.stdout, /deployment.apps\/web unchanged/);
    r = await k(['apply', '-f', '-'], deployment('nginx:1.26'));
    assert.match(r.stdout, /deployment.apps\/web configured/);
    r = await k(['apply', '-f', '-'], deployment('nginx:1.26', false));
    assert.equal(r.code, 0, r.stderr);
    r = await k(['get', 'deployment', 'web', '-o', 'json']);
    const d = JSON.parse(r.stdout);
    assert.deepEqual(
      d.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`),
      ['web=nginx:1.26'],
    );
    assert.equal(d.metadata.generation, 3);
    assert.ok(d.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  });
}

test('server-side apply: a conflicting manager gets 409 naming the field; --force-conflicts takes it', async () => {
  const cm = (value: string) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owned","namespace":"default"},"data":{"key":"${value}"}}`;
  let r = await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '--field-manager', 'alice', '-f', '-'], {
    input: cm('a'),
  });
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '--field-manager', 'bob', '-f', '-'], {
    input: cm('b'),
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /conflict/i);
  assert.match(r.stderr, /\.data\.key/);
  assert.match(r.stderr, /alice/);
  r = await kubectl(
    cp.kubeconfigPath,
    ['apply', '--server-side', '--field-manager', 'bob', '--force-conflicts', '-f', '-'],
    {
      input: cm('b'),
    },
  );
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(cp.kubeconfigPath, ['get', 'configmap', 'owned', '-o', 'json', '--show-managed-fields']);
  const obj = JSON.parse(r.stdout);
  assert.equal(obj.data.key, 'b');
  const managers = obj.metadata.managedFields.map((m: { manager: string }) => m.manager);
  assert.ok(managers.includes('bob'), managers.join(','));
  assert.ok(!managers.includes('alice'), 'alice no longer owns anything');
});

test('a pod requesting an extended resource must have equal requests and limits', async () => {
  const pod = (
    req: string,
    lim: string,
  ) => `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ext","namespace":"default"},
    "spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"example.com/foo":"${req}"},"limits":{"example.com/foo":"${lim}"}}}]}}`;
  const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: pod('1', '2') });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /example\.com\/foo/);
  assert.match(r.stderr, /must be equal to example\.com\/foo limit/);
});
