// A CRD in two versions whose conversion webhook is the runtime's WebhookServer: startTestEnv points
// its spec.conversion (written for a Service, as `peerpods generate` and kubebuilder write it) at the
// test's loopback server with the issued CA, as envtest's ModifyConversionWebhooks does; the API
// server then converts every read, list and watch through it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEnv, type TestEnv } from '../../src/testing/index.ts';
import {
  ConversionScheme,
  CustomResourceDefinitions,
  WebhookServer,
  conversionWebhook,
  customResource,
  type KubeObject,
  type WatchEvent,
} from '../../src/runtime/index.ts';

const GROUP = 'testing.example.com';
const V1 = customResource(GROUP, 'v1', 'Gadget', 'gadgets', true);
const V1ALPHA1 = customResource(GROUP, 'v1alpha1', 'Gadget', 'gadgets', true);

// v1 (the hub, stored) calls it `replicas`; v1alpha1 called it `size`.
interface GadgetV1 extends KubeObject {
  spec: { replicas?: number };
}
interface GadgetV1alpha1 extends KubeObject {
  spec: { size?: number };
}

const intSpec = (field: string) => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' } } } },
});

const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert', port: 443 } },
        conversionReviewVersions: ['v1'],
      },
    },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: intSpec('replicas') } },
      { name: 'v1alpha1', served: true, storage: false, schema: { openAPIV3Schema: intSpec('size') } },
    ],
  },
};

describe('startTestEnv with a conversion webhook served by the runtime', () => {
  let env: TestEnv;
  const server = { abort: new AbortController(), done: Promise.resolve() };
  const reviews: string[] = [];
  before(async () => {
    env = await startTestEnv({ crds: [crd], nodes: 0, webhooks: {} });
    const scheme = new ConversionScheme().hub(V1).spoke<GadgetV1alpha1, GadgetV1>(V1ALPHA1, {
      convertTo: ({ spec: { size, ...spec }, ...rest }) => {
        reviews.push(`to v1 ${rest.metadata.name}`);
        return { ...rest, spec: { ...spec, ...(size !== undefined ? { replicas: size } : {}) } };
      },
      convertFrom: ({ spec: { replicas, ...spec }, ...rest }) => {
        reviews.push(`to v1alpha1 ${rest.metadata.name}`);
        return { ...rest, spec: { ...spec, ...(replicas !== undefined ? { size: replicas } : {}) } };
      },
    });
    const webhooks = new WebhookServer(env.webhook!.serverOptions);
    webhooks.register('/convert', conversionWebhook(scheme));
    server.done = webhooks.start(server.abort.signal);
    await webhooks.address();
  });
  after(async () => {
    server.abort.abort();
    await server.done;
    await env?.stop();
  });

  it('points the CRD’s conversion webhook at the loopback server, with the issued CA', async () => {
    const live = await env.client.get<KubeObject & { spec: { conversion: { webhook: { clientConfig: object } } } }>(
      CustomResourceDefinitions,
      `gadgets.${GROUP}`,
    );
    assert.deepEqual(live.spec.conversion.webhook.clientConfig, {
      url: `https://127.0.0.1:${env.webhook!.port}/convert`,
      caBundle: Buffer.from(env.webhook!.caPem).toString('base64'),
    });
  });

  it('stores a v1alpha1 object as v1 and reads, lists and watches it in both versions', async () => {
    const created = await env.client.create<GadgetV1alpha1>(V1ALPHA1, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: 'default', labels: { app: 'demo' } },
      spec: { size: 3 },
    });
    assert.equal(created.apiVersion, `${GROUP}/v1alpha1`);
    assert.deepEqual(created.spec, { size: 3 });
    assert.ok(reviews.includes('to v1 g1'), 'the write was converted to the storage version');

    const asV1 = await env.client.get<GadgetV1>(V1, 'g1', 'default');
    assert.equal(asV1.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(asV1.spec, { replicas: 3 });
    assert.equal(asV1.metadata.uid, created.metadata.uid);
    assert.deepEqual(asV1.metadata.labels, { app: 'demo' });

    const asAlpha = await env.client.get<GadgetV1alpha1>(V1ALPHA1, 'g1', 'default');
    assert.deepEqual(asAlpha.spec, { size: 3 });

    const listV1 = await env.client.list<GadgetV1>(V1, { namespace: 'default' });
    assert.deepEqual(
      listV1.items.map((o) => [o.apiVersion, o.metadata.name, o.spec]),
      [[`${GROUP}/v1`, 'g1', { replicas: 3 }]],
    );
    const listAlpha = await env.client.list<GadgetV1alpha1>(V1ALPHA1, { namespace: 'default' });
    assert.deepEqual(
      listAlpha.items.map((o) => [o.apiVersion, o.metadata.name, o.spec]),
      [[`${GROUP}/v1alpha1`, 'g1', { size: 3 }]],
    );

    // A write in v1 shows up in a v1alpha1 watch, converted.
    const ac = new AbortController();
    const events: Array<WatchEvent<GadgetV1alpha1>> = [];
    const watching = (async () => {
      const stream = env.client.watch<GadgetV1alpha1>(V1ALPHA1, {
        namespace: 'default',
        resourceVersion: listAlpha.resourceVersion,
        signal: ac.signal,
      });
      for await (const ev of stream) {
        events.push(ev);
        if (ev.type === 'MODIFIED') break;
      }
    })();
    await env.client.patch(V1, 'g1', 'default', { spec: { replicas: 5 } }, 'merge');
    await env.waitFor(() => events.some((e) => e.type === 'MODIFIED'), { what: 'a MODIFIED event in v1alpha1' });
    ac.abort();
    await watching.catch(() => undefined);
    const modified = events.find((e) => e.type === 'MODIFIED')!.object;
    assert.equal(modified.apiVersion, `${GROUP}/v1alpha1`);
    assert.deepEqual(modified.spec, { size: 5 });

    const v1Watch = new AbortController();
    const v1Events: Array<WatchEvent<GadgetV1>> = [];
    const v1Watching = (async () => {
      for await (const ev of env.client.watch<GadgetV1>(V1, { namespace: 'default', signal: v1Watch.signal })) {
        v1Events.push(ev);
        break;
      }
    })();
    await env.waitFor(() => v1Events.length > 0, { what: 'the initial ADDED event in v1' });
    v1Watch.abort();
    await v1Watching.catch(() => undefined);
    assert.equal(v1Events[0].type, 'ADDED');
    assert.equal(v1Events[0].object.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(v1Events[0].object.spec, { replicas: 5 });
  });
});
