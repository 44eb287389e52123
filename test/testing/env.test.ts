// peerpods/testing's promise to operator authors: a test environment whose cluster behaves like a
// cluster — CRDs served, namespaces that finish deleting (controller-runtime#880), dependents
// garbage-collected (controller-runtime#1459), pods scheduled to nodes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEnv, type TestEnv } from '../../src/testing/index.ts';
import {
  ConfigMaps,
  Namespaces,
  Pods,
  Secrets,
  customResource,
  isNotFound,
  setControllerReference,
  type KubeObject,
} from '../../src/runtime/index.ts';
import { kubectl } from '../helpers/kubectl.ts';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures');
const Widgets = customResource('testing.example.com', 'v1', 'Widget', 'widgets', true);
const Gadgets = customResource('testing.example.com', 'v1', 'Gadget', 'gadgets', false);

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { ready?: boolean };
}

describe('startTestEnv', () => {
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv({ crds: [join(FIXTURES, 'crd/bases')], nodes: ['worker-a', 'worker-b'] });
  });
  after(() => env?.stop());

  it('serves the CRDs read from a kubebuilder config/crd/bases directory: a Widget round-trips, status through /status', async () => {
    const created = await env.client.create<Widget>(Widgets, {
      apiVersion: 'testing.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default' },
      spec: { size: 3 },
    });
    assert.equal(created.spec?.size, 3);
    // The schema is enforced: size has minimum 1.
    await assert.rejects(
      env.client.create<Widget>(Widgets, {
        apiVersion: 'testing.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w0', namespace: 'default' },
        spec: { size: 0 },
      }),
      /spec\.size/,
    );
    // The status subresource is on: status written on the main endpoint is dropped, /status keeps it.
    const withStatus = await env.client.updateStatus<Widget>(Widgets, { ...created, status: { ready: true } });
    assert.equal(withStatus.status?.ready, true);
    const got = await env.client.get<Widget>(Widgets, 'w1', 'default');
    assert.deepEqual([got.spec, got.status], [{ size: 3 }, { ready: true }]);
    // The kubeconfig file works for kubectl.
    const out = await kubectl(env.kubeconfigPath, ['get', 'widgets', '-n', 'default', '-o', 'name']);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout.trim(), 'widget.testing.example.com/w1');
  });

  it('installCRDs takes objects and resolves once the kind is served', async () => {
    const [crd] = await env.installCRDs([
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.testing.example.com' },
        spec: {
          group: 'testing.example.com',
          names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
          scope: 'Cluster',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
    ]);
    assert.equal(crd.metadata.name, 'gadgets.testing.example.com');
    // No wait between install and first write.
    await env.client.create(Gadgets, { apiVersion: 'testing.example.com/v1', kind: 'Gadget', metadata: { name: 'g' } });
  });

  it('fails on a CRD path that does not exist instead of installing nothing', async () => {
    await assert.rejects(env.installCRDs([join(FIXTURES, 'crd/nope')]), /does not exist/);
  });

  it('deletes a namespace with objects in it to the end (controller-runtime#880)', async () => {
    await env.client.create(Namespaces, { metadata: { name: 'doomed' } });
    await env.client.create(ConfigMaps, { metadata: { name: 'cm', namespace: 'doomed' }, data: { a: '1' } });
    await env.client.create<Widget>(Widgets, { metadata: { name: 'w', namespace: 'doomed' }, spec: { size: 1 } });
    await env.client.delete(Namespaces, 'doomed');
    await env.waitForDeletion(Namespaces, 'doomed');
    // Its content went with it, custom resources included.
    assert.equal((await env.client.list(Widgets, { namespace: 'doomed' })).items.length, 0);
    await assert.rejects(env.client.get(ConfigMaps, 'cm', 'doomed'), (e) => isNotFound(e));
  });

  it('garbage-collects the dependents of a deleted owner (controller-runtime#1459)', async () => {
    const owner = await env.client.create<Widget>(Widgets, {
      metadata: { name: 'owner', namespace: 'default' },
      spec: { size: 1 },
    });
    for (const type of [ConfigMaps, Secrets]) {
      const dependent: KubeObject = { metadata: { name: 'owned-by-widget', namespace: 'default' } };
      setControllerReference(owner, dependent);
      await env.client.create(type, dependent);
    }
    await env.client.delete(Widgets, 'owner', 'default');
    await env.waitForDeletion(ConfigMaps, 'owned-by-widget', 'default');
    await env.waitForDeletion(Secrets, 'owned-by-widget', 'default');
  });

  it('deletes in the foreground: the owner waits for its dependents', async () => {
    const owner = await env.client.create(ConfigMaps, { metadata: { name: 'fg-owner', namespace: 'default' } });
    const dependent: KubeObject = { metadata: { name: 'fg-dependent', namespace: 'default' } };
    setControllerReference(owner, dependent);
    await env.client.create(ConfigMaps, dependent);
    await env.client.delete(ConfigMaps, 'fg-owner', 'default', { propagationPolicy: 'Foreground' });
    await env.waitForDeletion(ConfigMaps, 'fg-owner', 'default');
    await assert.rejects(env.client.get(ConfigMaps, 'fg-dependent', 'default'), (e) => isNotFound(e));
  });

  it('schedules a pod to one of the named nodes, whose kubelet runs it', async () => {
    await env.client.create(Pods, {
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'example.com/app:1' }] },
    });
    const pod = await env.waitForObject<KubeObject & { spec: { nodeName?: string }; status?: { phase?: string } }>(
      Pods,
      'p',
      'default',
      (p) => p.status?.phase === 'Running',
    );
    assert.ok(['worker-a', 'worker-b'].includes(pod.spec.nodeName ?? ''), `scheduled to ${pod.spec.nodeName}`);
  });

  it("hands out the kubeconfig as @kubernetes/client-node's KubeConfig", async () => {
    const { CoreV1Api } = await import('@kubernetes/client-node');
    assert.equal(env.kubeconfig.getCurrentCluster()?.server, env.url);
    assert.match(env.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const api = env.kubeconfig.makeApiClient(CoreV1Api);
    const list = await api.listNamespace();
    assert.ok(list.items.some((ns) => ns.metadata?.name === 'kube-system'));
  });

  it('waitFor fails at its deadline, naming what it waited for', async () => {
    await assert.rejects(
      env.waitFor(() => false, { timeoutMs: 100, what: 'the impossible' }),
      /timed out after 100 ms waiting for the impossible/,
    );
  });
});

describe('startTestEnv({ controllers: false })', () => {
  it('serves the API alone, as envtest does, and refuses nodes without controllers', async () => {
    await assert.rejects(startTestEnv({ controllers: false, nodes: 1 }), /nodes need the controllers/);
    const env = await startTestEnv({ controllers: false });
    try {
      assert.equal((await env.client.list(Pods, { namespace: 'default' })).items.length, 0);
    } finally {
      await env.stop();
    }
  });
});
