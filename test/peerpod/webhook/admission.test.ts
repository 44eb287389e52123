// The webhook as the API server calls it: the MutatingWebhookConfiguration and certificate the
// PeerPodConfig controller generated, its Service resolved to a WebhookServer in this process, and
// pods created through the API.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { Counter } from 'prom-client';
import {
  MutatingWebhookConfigurations,
  Pods,
  RuntimeClasses,
  Secrets,
  mutatingHandler,
} from '../../../src/runtime/index.ts';
import type { KubeObject, WebhookServer } from '../../../src/runtime/index.ts';
import { Annotations, podWebhookServer } from '../../../src/peerpod/webhook/index.ts';
import { NS, createConfig, eventually, startController, startEnv } from '../peerpodconfig/helpers.ts';
import type { Env, Running } from '../peerpodconfig/helpers.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- deep reads of the Pod shape in assertions */
type Obj = KubeObject & Record<string, any>;

const MWC = `peer-pods-webhook-${NS}`;

async function mutations(registry: Registry): Promise<number> {
  const c = registry.getSingleMetric('peerpods_webhook_pod_mutations_total') as Counter | undefined;
  const v = (await c?.get())?.values.find((x) => x.labels.result === 'mutated');
  return v?.value ?? 0;
}

function pod(name: string, runtimeClassName: string, namespace = 'default'): Obj {
  return {
    metadata: { name, namespace },
    spec: {
      runtimeClassName,
      containers: [
        {
          name: 'app',
          image: 'x',
          resources: { requests: { cpu: '1500m', memory: '1Gi' }, limits: { memory: '1Gi' } },
        },
        { name: 'side', image: 'x', resources: { requests: { cpu: '100m', memory: '100Mi' } } },
      ],
      initContainers: [{ name: 'init', image: 'x', resources: { requests: { cpu: '400m' } } }],
    },
  };
}

describe('peer-pods webhook called by the API server', () => {
  let env: Env;
  let ctrl: Running;
  let server: WebhookServer;
  let dir: string;
  const abort = new AbortController();
  let serving: Promise<void>;
  const registry = new Registry();

  before(async () => {
    env = await startEnv(0);
    ctrl = await startController(env, { deployAdaptor: false });
    for (const name of ['kata-remote', 'runc']) {
      await env.client.create(RuntimeClasses, { metadata: { name }, handler: name } as KubeObject);
    }
    await createConfig(env, 'hook', { limit: 1 });
    const secret = await eventually(async () => {
      try {
        return await env.client.get<Obj>(Secrets, 'peer-pods-webhook-svc-secret', NS);
      } catch {
        return undefined;
      }
    });
    await eventually(() => env.client.get(MutatingWebhookConfigurations, MWC).catch(() => undefined));
    dir = await mkdtemp(path.join(tmpdir(), 'peerpods-webhook-'));
    await writeFile(path.join(dir, 'tls.crt'), Buffer.from(secret.data['tls.crt'], 'base64'));
    await writeFile(path.join(dir, 'tls.key'), Buffer.from(secret.data['tls.key'], 'base64'));
    server = podWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, metricsRegistry: registry });
    // A later webhook that changes the pod, so the API server reinvokes ours (reinvocationPolicy IfNeeded).
    server.register(
      '/add-label',
      mutatingHandler((p: KubeObject) => {
        p.metadata.labels = { ...p.metadata.labels, touched: 'yes' };
      }),
    );
    serving = server.start(abort.signal);
    const { port } = await server.address();
    // The Service selects the webhook Deployment's pods, which no node runs here (the control
    // plane's Endpoints controller lists none): the Service resolves to this process instead (on
    // `peerpods start` the webhook Deployment's pods serve it, found through the Endpoints).
    env.cluster.internals.setServiceResolver((namespace, name) => {
      if (namespace === NS && name === 'peer-pods-webhook-svc') return { host: '127.0.0.1', port };
      throw new Error(`no endpoints available for service "${name}"`);
    });
    const ours = await env.client.get<Obj>(MutatingWebhookConfigurations, MWC);
    await env.client.create(MutatingWebhookConfigurations, {
      metadata: { name: 'zz-test-add-label' },
      webhooks: [
        {
          name: 'label.test.peerpods.io',
          admissionReviewVersions: ['v1'],
          clientConfig: {
            service: { name: 'peer-pods-webhook-svc', namespace: NS, path: '/add-label', port: 443 },
            caBundle: ours.webhooks[0].clientConfig.caBundle,
          },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'default' } },
        },
      ],
    } as KubeObject);
  });

  after(async () => {
    abort.abort();
    await serving;
    await ctrl.stop();
    await env.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('rewrites a kata-remote pod: VM size annotations, one kata.peerpods.io/vm, idempotent on reinvocation', async () => {
    const before = await mutations(registry);
    const created = await env.client.create<Obj>(Pods, pod('peer', 'kata-remote'));
    const ann = created.metadata.annotations ?? {};
    // cpu: 1500m + 100m + 400m = 2; memory: limit 1Gi (>= request) + 100Mi request = 1124 MiB.
    assert.equal(ann[Annotations.vcpus], '2');
    assert.equal(ann[Annotations.memory], '1124');
    assert.equal(ann[Annotations.gpus], undefined);
    assert.deepEqual(created.spec.containers[0].resources, {
      requests: { 'kata.peerpods.io/vm': '1' },
      limits: { 'kata.peerpods.io/vm': '1' },
    });
    assert.deepEqual(created.spec.containers[1].resources ?? {}, {});
    assert.deepEqual(created.spec.initContainers[0].resources ?? {}, {});
    assert.equal(created.metadata.labels?.touched, 'yes');
    assert.equal((await mutations(registry)) - before, 2, 'called again after the label webhook, same result');
  });

  it('leaves pods of another runtime class untouched', async () => {
    const created = await env.client.create<Obj>(Pods, pod('plain', 'runc'));
    assert.equal(created.metadata.annotations?.[Annotations.vcpus], undefined);
    assert.equal(created.spec.containers[0].resources.requests.cpu, '1500m');
  });

  it('is not called for its own namespace (namespaceSelector NotIn)', async () => {
    const created = await env.client.create<Obj>(Pods, pod('own', 'kata-remote', NS));
    assert.equal(created.metadata.annotations?.[Annotations.vcpus], undefined);
    assert.equal(created.spec.containers[0].resources.requests.cpu, '1500m');
  });
});
