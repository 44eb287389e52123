// Webhooks that cannot be reached or answer nonsense: failurePolicy Fail rejects the request with
// kube's "failed calling webhook" 500, Ignore lets it through.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import {
  allow,
  api,
  foreignCaBundle,
  pod,
  registerHooks,
  startHookServer,
  urlConfig,
  type HookServer,
  type HookSpec,
  type Reply,
} from './helpers.ts';

let cp: TestCluster;
let hooks: HookServer;
let reply: () => Reply = () => allow();
const cleanups: Array<() => Promise<void>> = [];

before(async () => {
  cp = await startTestCluster();
  hooks = await startHookServer(() => reply());
});
after(async () => {
  await hooks?.close();
  await cp?.stop();
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  reply = () => allow();
});

const PODS = '/api/v1/namespaces/default/pods';

/** Creates a pod behind one webhook with each failurePolicy; returns both answers. */
async function underBothPolicies(
  spec: Omit<HookSpec, 'name' | 'failurePolicy'>,
  kind: 'mutating' | 'validating' = 'validating',
) {
  const out: Record<'Fail' | 'Ignore', { status: number; message: string }> = {} as never;
  for (const policy of ['Fail', 'Ignore'] as const) {
    const remove = await registerHooks(cp, kind, `policy-${policy.toLowerCase()}`, [
      { name: `${policy.toLowerCase()}.example.com`, failurePolicy: policy, ...spec },
    ]);
    const r = await api(cp, 'POST', PODS, pod());
    out[policy] = { status: r.status, message: String(r.body.message ?? '') };
    await remove();
  }
  return out;
}

test('a timeout fails the request under Fail and is ignored under Ignore', async () => {
  reply = () => ({ hang: true });
  const started = Date.now();
  const r = await underBothPolicies({ clientConfig: urlConfig(hooks, '/slow'), timeoutSeconds: 1 });
  assert.equal(r.Fail.status, 500);
  assert.equal(
    r.Fail.message,
    `Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "${hooks.url('/slow')}?timeout=1s": context deadline exceeded`,
  );
  assert.equal(r.Ignore.status, 201);
  // Two calls bounded by timeoutSeconds: 1, not the 10 s default.
  assert.ok(Date.now() - started < 8000);
});

test('a server the caBundle does not vouch for is a call failure', async () => {
  const r = await underBothPolicies({ clientConfig: urlConfig(hooks, '/x', foreignCaBundle()) });
  assert.equal(r.Fail.status, 500);
  assert.match(
    r.Fail.message,
    /failed calling webhook "fail.example.com": failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
  );
  assert.equal(r.Ignore.status, 201);
});

test('malformed answers follow the failurePolicy', async () => {
  const cases: Array<{ reply: Reply; message: RegExp; kind?: 'mutating' | 'validating' }> = [
    {
      reply: { raw: '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionRev' },
      message: /couldn't get version\/kind; json parse error/,
    },
    {
      reply: { response: { uid: 'not-the-uid', allowed: true } },
      message: /received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "not-the-uid"/,
    },
    {
      reply: {
        raw: '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"{uid}","allowed":true,"patchType":"JSONPatch","patch":"%%%not base64"}}',
      },
      message: /illegal base64 data in response.patch/,
      kind: 'mutating',
    },
    {
      reply: {
        raw: '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"{uid}","allowed":true}}',
      },
      message: /expected webhook response of admission.k8s.io\/v1, Kind=AdmissionReview, got admission.k8s.io\/v1beta1/,
    },
    {
      reply: { raw: '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}' },
      message: /webhook response was absent/,
    },
    {
      reply: { raw: 'oops', status: 500 },
      message: /an error on the server \("oops"\) has prevented the request from succeeding/,
    },
    {
      reply: { response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('[]').toString('base64') } },
      message: /validating webhooks may not return response.patch/,
    },
  ];
  for (const c of cases) {
    reply = () => c.reply;
    const r = await underBothPolicies({ clientConfig: urlConfig(hooks, '/m') }, c.kind);
    assert.equal(r.Fail.status, 500, `${JSON.stringify(c.reply)}: ${r.Fail.message}`);
    assert.match(r.Fail.message, /^Internal error occurred: failed calling webhook "fail.example.com": /);
    assert.match(r.Fail.message, c.message);
    assert.equal(r.Ignore.status, 201, `${JSON.stringify(c.reply)}: ${r.Ignore.message}`);
  }
});

test('nothing listening, or no v1 in admissionReviewVersions, is a call failure', async () => {
  const closed = await startHookServer(() => allow());
  const url = closed.url('/gone');
  await closed.close();
  let r = await underBothPolicies({ clientConfig: { url, caBundle: hooks.caBundle } });
  assert.equal(r.Fail.status, 500);
  assert.match(r.Fail.message, /connect: connection refused$/);
  assert.equal(r.Ignore.status, 201);

  r = await underBothPolicies({ clientConfig: urlConfig(hooks, '/v1beta1'), admissionReviewVersions: ['v1beta1'] });
  assert.equal(r.Fail.status, 500);
  assert.match(r.Fail.message, /webhook does not accept v1 AdmissionReview/);
  assert.equal(r.Ignore.status, 201);
});
