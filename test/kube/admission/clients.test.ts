// What real clients show for a webhook denial and a webhook failure: client-node's ApiException
// and kubectl's error line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { allow, deny, registerHooks, startHookServer, urlConfig, type HookServer } from './helpers.ts';

let cp: TestCluster;
let hooks: HookServer;
let core: CoreV1Api;

before(async () => {
  cp = await startTestCluster();
  hooks = await startHookServer((req) =>
    (req.object as { metadata?: { labels?: Record<string, string> } } | null)?.metadata?.labels?.owner
      ? allow({ warnings: ['owner labels are audited'] })
      : deny('every object needs an owner label'),
  );
  await registerHooks(cp, 'validating', 'owners', [
    {
      name: 'owners.example.com',
      clientConfig: urlConfig(hooks, '/owners'),
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    },
  ]);
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
after(async () => {
  await hooks?.close();
  await cp?.stop();
});

test('client-node gets the denial as an ApiException with the Status body', async () => {
  await assert.rejects(
    core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'no-owner' } } }),
    (e: unknown) => {
      assert.ok(e instanceof ApiException);
      assert.equal(e.code, 403);
      const status = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as { message: string; code: number };
      assert.equal(status.code, 403);
      assert.equal(
        status.message,
        'admission webhook "owners.example.com" denied the request: every object needs an owner label',
      );
      return true;
    },
  );
  const ok = await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'owned', labels: { owner: 'me' } } },
  });
  assert.equal(ok.metadata?.name, 'owned');
});

test('kubectl prints the denial message, and webhook warnings', async () => {
  let r = await kubectl(cp.kubeconfigPath, ['create', 'configmap', 'k-no-owner']);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /admission webhook "owners\.example\.com" denied the request: every object needs an owner label/,
  );
  const manifest = JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'k-owned', namespace: 'default', labels: { owner: 'me' } },
  });
  r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: manifest });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Warning: owner labels are audited/);
});
