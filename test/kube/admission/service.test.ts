// Webhooks addressed by Service: resolved through the Service's Endpoints (or a resolver the
// embedding process installs) and verified as `<name>.<namespace>.svc`; dry-run and sideEffects.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import {
  allow,
  api,
  patchReply,
  pod,
  registerHooks,
  startHookServer,
  storeHooksDirectly,
  type HookServer,
  fromClient,
} from './helpers.ts';

let cp: TestCluster;
let hooks: HookServer;
const cleanups: Array<() => Promise<void> | void> = [];

before(async () => {
  cp = await startTestCluster();
  hooks = await startHookServer((req) =>
    req.operation === 'CREATE' ? patchReply([{ op: 'add', path: '/metadata/labels/via', value: 'service' }]) : allow(),
  );
  assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'webhooks' } })).status, 201);
  const svc = await api(cp, 'POST', '/api/v1/namespaces/webhooks/services', {
    metadata: { name: 'hooks' },
    spec: { ports: [{ name: 'https', port: 443, targetPort: hooks.port }] },
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  const ep = await api(cp, 'POST', '/api/v1/namespaces/webhooks/endpoints', {
    metadata: { name: 'hooks' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hooks.port }] }],
  });
  assert.equal(ep.status, 201, JSON.stringify(ep.body));
});
after(async () => {
  await hooks?.close();
  await cp?.stop();
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  cp.internals.setServiceResolver(undefined);
  hooks.requests.length = 0;
});

const PODS = '/api/v1/namespaces/default/pods';
const service = (name = 'hooks', path = '/svc') => ({
  service: { namespace: 'webhooks', name, path, port: 443 },
  caBundle: hooks.caBundle,
});
const labelsOf = (body: Record<string, unknown>) => (body.metadata as { labels?: Record<string, string> }).labels;

test('a service reference is dialled at the address its Endpoints list', async () => {
  cleanups.push(await registerHooks(cp, 'mutating', 'svc', [{ name: 'svc.example.com', clientConfig: service() }]));
  const r = await api(cp, 'POST', PODS, pod());
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(labelsOf(r.body)?.via, 'service');
  assert.equal(fromClient(hooks)[0].path, '/svc');
});

test('a service without endpoints fails the call', async () => {
  cleanups.push(
    await registerHooks(cp, 'mutating', 'svc', [{ name: 'svc.example.com', clientConfig: service('missing') }]),
  );
  const r = await api(cp, 'POST', PODS, pod());
  assert.equal(r.status, 500);
  assert.equal(
    r.body.message,
    'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://missing.webhooks.svc:443/svc?timeout=10s": no endpoints available for service "missing"',
  );
});

test('an installed resolver replaces the Endpoints lookup; the certificate must name the service', async () => {
  const asked: string[] = [];
  cp.internals.setServiceResolver((ns, name, port) => {
    asked.push(`${ns}/${name}:${port}`);
    return { host: '127.0.0.1', port: hooks.port };
  });
  cleanups.push(
    await registerHooks(cp, 'mutating', 'svc', [{ name: 'svc.example.com', clientConfig: service('elsewhere') }]),
  );
  const r = await api(cp, 'POST', PODS, pod());
  assert.deepEqual(asked, ['webhooks/elsewhere:443']);
  // The serving certificate is for hooks.webhooks.svc, not elsewhere.webhooks.svc.
  assert.equal(r.status, 500);
  assert.match(
    String(r.body.message),
    /Post "https:\/\/elsewhere\.webhooks\.svc:443\/svc\?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for localhost, hooks\.webhooks\.svc, not elsewhere\.webhooks\.svc$/,
  );
});

test('dry-run calls webhooks without side effects and stores nothing', async () => {
  cleanups.push(
    await registerHooks(cp, 'mutating', 'svc', [
      { name: 'none.example.com', clientConfig: service(), sideEffects: 'None' },
      { name: 'noneondryrun.example.com', clientConfig: service(), sideEffects: 'NoneOnDryRun' },
    ]),
  );
  const r = await api(cp, 'POST', `${PODS}?dryRun=All`, pod({}, 'dry'));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(labelsOf(r.body)?.via, 'service');
  assert.equal(fromClient(hooks).length, 2);
  for (const { request } of fromClient(hooks)) {
    assert.equal(request.dryRun, true);
    assert.deepEqual((request.options as { dryRun?: string[] }).dryRun, ['All']);
  }
  assert.equal((await api(cp, 'GET', `${PODS}/dry`)).status, 404);
});

test('dry-run is refused with 400 by a webhook that may have side effects; real requests still call it', async () => {
  cleanups.push(
    storeHooksDirectly(cp, 'mutating', 'some', [
      { name: 'some.example.com', clientConfig: service(), sideEffects: 'Some' },
    ]),
  );
  const r = await api(cp, 'POST', `${PODS}?dryRun=All`, pod({}, 'dry'));
  assert.equal(r.status, 400);
  assert.equal(r.body.message, 'admission webhook "some.example.com" does not support dry run');
  assert.equal(fromClient(hooks).length, 0);
  const real = await api(cp, 'POST', PODS, pod());
  assert.equal(real.status, 201, JSON.stringify(real.body));
  assert.equal(fromClient(hooks).length, 1);
});
