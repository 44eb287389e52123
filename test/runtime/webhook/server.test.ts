import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import {
  AdmissionDenied,
  WebhookServer,
  mutatingHandler,
  validatingHandler,
} from '../../../src/runtime/webhook/index.ts';
import type { AdmissionReview } from '../../../src/runtime/webhook/index.ts';
import { waitFor } from '../../helpers/wait.ts';
import { issue, makeCa } from './certs.ts';
import { post } from './post.ts';

function review(object: KubeObject | null, operation: 'CREATE' | 'DELETE' = 'CREATE'): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'req-123',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation,
      userInfo: { username: 'alice' },
      object,
    },
  };
}

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } },
  spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'c', image: 'nginx', resources: {} }] },
};

describe('WebhookServer', () => {
  const ca = makeCa();
  let dir: string;
  let server: WebhookServer;
  const stop = new AbortController();
  let running: Promise<void>;
  let port: number;
  const registry = new Registry();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webhook-test-'));
    const first = issue(ca, 'serving-1');
    await writeFile(join(dir, 'tls.crt'), first.certPem);
    await writeFile(join(dir, 'tls.key'), first.keyPem);
    server = new WebhookServer({
      certDir: dir,
      port: 0,
      host: '127.0.0.1',
      certPollIntervalMs: 200,
      metricsRegistry: registry,
    });
    server.register(
      '/mutate-pod',
      mutatingHandler((p: KubeObject & { spec: { containers: Array<{ resources: Record<string, unknown> }> } }) => {
        if (p.metadata.labels?.forbidden) throw new AdmissionDenied('label "forbidden" is not allowed');
        p.metadata.annotations = { ...p.metadata.annotations, 'peerpods.io/vm-size': 'small' };
        p.spec.containers[0].resources = { limits: { 'kata.peerpods.io/vm': '1' } };
      }),
    );
    server.register(
      '/validate-pod',
      validatingHandler((req) => {
        if (!req.object?.metadata.labels?.app) return { denied: 'pods need an app label' };
        return ['consider setting resources'];
      }),
    );
    server.register('/broken', () => {
      throw new Error('handler bug');
    });
    running = server.start(stop.signal);
    port = (await server.address()).port;
  });

  after(async () => {
    stop.abort();
    await running;
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a mutating review with a base64 JSON patch computed from the edit', async () => {
    const res = await post(port, ca.certPem, '/mutate-pod', review(pod));
    assert.equal(res.status, 200);
    const out = JSON.parse(res.body) as AdmissionReview;
    assert.equal(out.apiVersion, 'admission.k8s.io/v1');
    assert.equal(out.kind, 'AdmissionReview');
    assert.equal(out.response?.uid, 'req-123');
    assert.equal(out.response?.allowed, true);
    assert.equal(out.response?.patchType, 'JSONPatch');
    const ops = JSON.parse(Buffer.from(out.response?.patch as string, 'base64').toString()) as unknown[];
    assert.deepEqual(
      ops.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [
        { op: 'add', path: '/metadata/annotations', value: { 'peerpods.io/vm-size': 'small' } },
        { op: 'add', path: '/spec/containers/0/resources/limits', value: { 'kata.peerpods.io/vm': '1' } },
      ],
    );
  });

  it('denies from a mutator, allows DELETE without an object, validates with warnings', async () => {
    const forbidden = { ...pod, metadata: { ...pod.metadata, labels: { forbidden: 'x' } } };
    const denied = JSON.parse((await post(port, ca.certPem, '/mutate-pod', review(forbidden))).body) as AdmissionReview;
    assert.equal(denied.response?.allowed, false);
    assert.equal(denied.response?.status?.code, 403);
    assert.match(String(denied.response?.status?.message), /forbidden/);
    const del = JSON.parse(
      (await post(port, ca.certPem, '/mutate-pod', review(null, 'DELETE'))).body,
    ) as AdmissionReview;
    assert.equal(del.response?.allowed, true);
    assert.equal(del.response?.patch, undefined);
    const ok = JSON.parse((await post(port, ca.certPem, '/validate-pod', review(pod))).body) as AdmissionReview;
    assert.equal(ok.response?.allowed, true);
    assert.deepEqual(ok.response?.warnings, ['consider setting resources']);
    const unlabeled = { ...pod, metadata: { name: 'p' } };
    const no = JSON.parse((await post(port, ca.certPem, '/validate-pod', review(unlabeled))).body) as AdmissionReview;
    assert.equal(no.response?.allowed, false);
    assert.equal(no.response?.status?.message, 'pods need an app label');
  });

  it('turns a throwing handler into a denial with code 500 and rejects malformed requests', async () => {
    const broken = JSON.parse((await post(port, ca.certPem, '/broken', review(pod))).body) as AdmissionReview;
    assert.equal(broken.response?.allowed, false);
    assert.equal(broken.response?.status?.code, 500);
    assert.equal((await post(port, ca.certPem, '/nope', review(pod))).status, 404);
    assert.equal((await post(port, ca.certPem, '/mutate-pod', '{not json')).status, 400);
    assert.equal((await post(port, ca.certPem, '/mutate-pod', { kind: 'Pod' })).status, 400);
    assert.equal((await post(port, ca.certPem, '/mutate-pod', review(pod), 'text/plain')).status, 400);
    assert.match(
      await registry.metrics(),
      /controller_runtime_webhook_requests_total\{webhook="\/mutate-pod",code="200"\}/,
    );
  });

  it('reloads rotated certificates without a restart (atomic rename, then a half-written rotation)', async () => {
    assert.equal((await post(port, ca.certPem, '/validate-pod', review(pod))).peerCn, 'serving-1');
    const second = issue(ca, 'serving-2');
    // Write as a Secret volume update would: new files renamed into place.
    await writeFile(join(dir, 'tls.crt.tmp'), second.certPem);
    await writeFile(join(dir, 'tls.key.tmp'), second.keyPem);
    await rename(join(dir, 'tls.key.tmp'), join(dir, 'tls.key'));
    await rename(join(dir, 'tls.crt.tmp'), join(dir, 'tls.crt'));
    await waitFor(
      async () => (await post(port, ca.certPem, '/validate-pod', review(pod))).peerCn === 'serving-2',
      'the new certificate to be served',
    );
    // A cert without its matching key is ignored: the server keeps serving the last valid pair.
    const third = issue(ca, 'serving-3');
    await writeFile(join(dir, 'tls.crt'), third.certPem);
    assert.equal(await server.reloadCertificates(), false);
    assert.equal((await post(port, ca.certPem, '/validate-pod', review(pod))).peerCn, 'serving-2');
    await writeFile(join(dir, 'tls.key'), third.keyPem);
    await waitFor(
      async () => (await post(port, ca.certPem, '/validate-pod', review(pod))).peerCn === 'serving-3',
      'the third certificate once its key arrived',
    );
  });
});
