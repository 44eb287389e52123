// The `webhooks` option, as envtest's WebhookInstallOptions: configurations written for a Service
// (kubebuilder's config/webhook/manifests.yaml) are pointed at the test's own loopback server, which
// serves with the certificate the environment issued; the API server then really calls it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEnv, type TestEnv } from '../../src/testing/index.ts';
import {
  AdmissionDenied,
  MutatingWebhookConfigurations,
  WebhookServer,
  customResource,
  mutatingHandler,
  validatingHandler,
  type KubeObject,
} from '../../src/runtime/index.ts';

const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures');
const Widgets = customResource('testing.example.com', 'v1', 'Widget', 'widgets', true);

interface Widget extends KubeObject {
  spec?: { size?: number };
}

describe('startTestEnv({ webhooks })', () => {
  let env: TestEnv;
  const server = { abort: new AbortController(), done: Promise.resolve() };
  const calls: string[] = [];
  before(async () => {
    env = await startTestEnv({
      crds: [join(FIXTURES, 'crd/bases')],
      nodes: 0,
      webhooks: { configurations: [join(FIXTURES, 'webhook/manifests.yaml')] },
    });
    const webhooks = new WebhookServer(env.webhook!.serverOptions);
    webhooks.register(
      '/mutate-testing-example-com-v1-widget',
      mutatingHandler<Widget>((w, req) => {
        calls.push(`mutate ${req.operation} ${req.name}`);
        w.metadata.labels = { ...w.metadata.labels, 'testing.example.com/defaulted': 'true' };
        w.spec = { size: 1, ...w.spec };
      }),
    );
    webhooks.register(
      '/validate-testing-example-com-v1-widget',
      validatingHandler<Widget>((req) => {
        calls.push(`validate ${req.operation} ${req.name}`);
        if ((req.object?.spec?.size ?? 0) > 10) throw new AdmissionDenied('size must be at most 10');
      }),
    );
    server.done = webhooks.start(server.abort.signal);
    await webhooks.address();
  });
  after(async () => {
    server.abort.abort();
    await server.done;
    await env?.stop();
  });

  it('installs the configurations pointed at the loopback server, with the issued CA as caBundle', async () => {
    const cfg = await env.client.get<KubeObject & { webhooks: Array<{ clientConfig: Record<string, unknown> }> }>(
      MutatingWebhookConfigurations,
      'mutating-webhook-configuration',
    );
    const { clientConfig } = cfg.webhooks[0];
    assert.deepEqual(Object.keys(clientConfig).sort(), ['caBundle', 'url']);
    assert.equal(clientConfig.url, `https://127.0.0.1:${env.webhook!.port}/mutate-testing-example-com-v1-widget`);
    assert.equal(Buffer.from(String(clientConfig.caBundle), 'base64').toString(), env.webhook!.caPem);
    assert.equal(readFileSync(join(env.webhook!.certDir, 'ca.crt'), 'utf8'), env.webhook!.caPem);
  });

  it('has the API server call the mutating webhook, whose patch is stored', async () => {
    const w = await env.client.create<Widget>(Widgets, { metadata: { name: 'defaulted', namespace: 'default' } });
    assert.equal(w.metadata.labels?.['testing.example.com/defaulted'], 'true');
    assert.deepEqual(w.spec, { size: 1 });
    assert.deepEqual(
      calls.filter((c) => c.endsWith(' defaulted')),
      ['mutate CREATE defaulted', 'validate CREATE defaulted'],
    );
  });

  it('has the API server call the validating webhook, whose denial reaches the client', async () => {
    await assert.rejects(
      env.client.create<Widget>(Widgets, { metadata: { name: 'huge', namespace: 'default' }, spec: { size: 11 } }),
      // kube-apiserver's wording for a webhook denial: admission webhook "<name>" denied the request: <message>
      // (k8s.io/apiserver/pkg/admission/plugin/webhook/errors/statuserror.go, ToStatusErr)
      /admission webhook "vwidget\.testing\.example\.com" denied the request: size must be at most 10/,
    );
  });

  it('installs more configurations later through installWebhookConfigurations', async () => {
    const [cfg] = await env.installWebhookConfigurations([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'late' },
        webhooks: [
          {
            name: 'late.testing.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/validate-late' } },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nowhere' } },
          },
        ],
      },
    ]);
    const hooks = cfg.webhooks as Array<{ clientConfig: { url: string } }>;
    assert.equal(hooks[0].clientConfig.url, env.webhook!.url('/validate-late'));
  });
});

describe('installWebhookConfigurations without the webhooks option', () => {
  it('is refused: there is no server certificate to point at', async () => {
    const env = await startTestEnv({ nodes: 0 });
    try {
      await assert.rejects(env.installWebhookConfigurations([]), /start the environment with the `webhooks` option/);
      assert.equal(env.webhook, undefined);
    } finally {
      await env.stop();
    }
  });
});
