// Mutating and validating webhooks on the write path: patches applied, denials returned,
// reinvocation, ordering, warnings, and patches that cannot be used.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import {
  allow,
  api,
  deny,
  patchReply,
  pod,
  podRules,
  registerHooks,
  startHookServer,
  urlConfig,
  type HookServer,
  fromClient,
} from './helpers.ts';
import type { AdmissionRequest } from '../../../src/runtime/index.ts';

let cp: TestCluster;
let hooks: HookServer;
let handlers: Record<string, (req: AdmissionRequest) => ReturnType<typeof allow>> = {};
const cleanups: Array<() => Promise<void>> = [];

before(async () => {
  cp = await startTestCluster();
  hooks = await startHookServer((req, path) => (handlers[path] ?? (() => allow()))(req));
});
after(async () => {
  await hooks?.close();
  await cp?.stop();
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  handlers = {};
  hooks.requests.length = 0;
});

const PODS = '/api/v1/namespaces/default/pods';

type Obj = { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
const objectOf = (req: AdmissionRequest) => req.object as unknown as Obj;

test('a mutating webhook patch is applied to the stored pod and the review carries the request', async () => {
  handlers['/mutate'] = () => patchReply([{ op: 'add', path: '/metadata/annotations', value: { injected: 'yes' } }]);
  cleanups.push(
    await registerHooks(cp, 'mutating', 'inject', [
      { name: 'inject.example.com', clientConfig: urlConfig(hooks, '/mutate') },
    ]),
  );

  const created = await api(cp, 'POST', PODS, pod({ app: 'web' }, 'mutated'));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual((created.body.metadata as Obj['metadata']).annotations, { injected: 'yes' });
  const got = await api(cp, 'GET', `${PODS}/mutated`);
  assert.deepEqual((got.body.metadata as Obj['metadata']).annotations, { injected: 'yes' });

  const req = fromClient(hooks)[0].request;
  assert.equal(req.operation, 'CREATE');
  assert.deepEqual(req.kind, { group: '', version: 'v1', kind: 'Pod' });
  assert.deepEqual(req.resource, { group: '', version: 'v1', resource: 'pods' });
  assert.equal(req.namespace, 'default');
  assert.equal(req.name, 'mutated');
  assert.equal(req.dryRun, false);
  assert.equal(req.oldObject, null);
  assert.equal(req.userInfo.username, 'kubernetes-admin');
  assert.equal((req.options as { kind?: string }).kind, 'CreateOptions');
  assert.equal(objectOf(req).metadata.labels?.app, 'web');

  // UPDATE carries the old object too.
  handlers['/mutate'] = () => allow();
  const cur = (await api(cp, 'GET', `${PODS}/mutated`)).body as Obj;
  cur.metadata.labels = { app: 'web', v: '2' };
  const updated = await api(cp, 'PUT', `${PODS}/mutated`, cur);
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  const upd = fromClient(hooks).at(-1)!.request;
  assert.equal(upd.operation, 'UPDATE');
  assert.equal((upd.oldObject as unknown as Obj).metadata.labels?.v, undefined);
  assert.equal(objectOf(upd).metadata.labels?.v, '2');
});

test('a denial reaches the client with the webhook code and message, and nothing is stored', async () => {
  handlers['/deny'] = () => deny('pods need an owner label', 403, 'Forbidden');
  cleanups.push(
    await registerHooks(cp, 'validating', 'deny', [
      { name: 'deny.example.com', clientConfig: urlConfig(hooks, '/deny') },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod({}, 'denied'));
  assert.equal(r.status, 403);
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.reason, 'Forbidden');
  assert.equal(r.body.message, 'admission webhook "deny.example.com" denied the request: pods need an owner label');
  assert.equal((await api(cp, 'GET', `${PODS}/denied`)).status, 404);
});

test('a denial without code or message is a 400 "without explanation" and carries no reason', async () => {
  handlers['/deny'] = () => ({ response: { allowed: false } });
  cleanups.push(
    await registerHooks(cp, 'mutating', 'deny', [
      { name: 'bare.example.com', clientConfig: urlConfig(hooks, '/deny') },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod());
  assert.equal(r.status, 400);
  assert.equal(r.body.message, 'admission webhook "bare.example.com" denied the request without explanation');
  assert.equal(r.body.reason, undefined);
});

test('mutating webhooks run in configuration-name order and each sees the previous patch', async () => {
  handlers['/first'] = () => patchReply([{ op: 'add', path: '/metadata/labels/order', value: 'a' }]);
  handlers['/second'] = (req) => {
    const prev = objectOf(req).metadata.labels?.order ?? '';
    return patchReply([{ op: 'replace', path: '/metadata/labels/order', value: `${prev}b` }]);
  };
  cleanups.push(
    await registerHooks(cp, 'mutating', 'z-second', [
      { name: 'second.example.com', clientConfig: urlConfig(hooks, '/second') },
    ]),
  );
  cleanups.push(
    await registerHooks(cp, 'mutating', 'a-first', [
      { name: 'first.example.com', clientConfig: urlConfig(hooks, '/first') },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod({ x: '1' }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal((r.body.metadata as Obj['metadata']).labels?.order, 'ab');
  assert.deepEqual(
    fromClient(hooks).map((q) => q.path),
    ['/first', '/second'],
  );
});

test('reinvocationPolicy IfNeeded runs an earlier webhook again after a later one changed the object', async () => {
  handlers['/early'] = () => allow();
  handlers['/never'] = () => allow();
  handlers['/late'] = (req) =>
    objectOf(req).metadata.labels?.late
      ? allow()
      : patchReply([{ op: 'add', path: '/metadata/labels/late', value: 'y' }]);
  cleanups.push(
    await registerHooks(cp, 'mutating', 'reinvoke', [
      { name: 'early.example.com', clientConfig: urlConfig(hooks, '/early'), reinvocationPolicy: 'IfNeeded' },
      { name: 'never.example.com', clientConfig: urlConfig(hooks, '/never') },
      { name: 'late.example.com', clientConfig: urlConfig(hooks, '/late'), reinvocationPolicy: 'IfNeeded' },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod({ x: '1' }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  // `late` changed the object after it ran itself, so only `early` is asked again.
  assert.deepEqual(
    fromClient(hooks).map((q) => q.path),
    ['/early', '/never', '/late', '/early'],
  );
  assert.equal(objectOf(fromClient(hooks)[3].request).metadata.labels?.late, 'y');
});

test('validating webhooks run after mutation and see the mutated object', async () => {
  handlers['/mutate'] = () => patchReply([{ op: 'add', path: '/metadata/labels/owner', value: 'team-a' }]);
  handlers['/validate'] = (req) =>
    objectOf(req).metadata.labels?.owner === 'team-a' ? allow() : deny('owner label missing');
  cleanups.push(
    await registerHooks(cp, 'mutating', 'owner', [
      { name: 'owner.example.com', clientConfig: urlConfig(hooks, '/mutate') },
    ]),
  );
  cleanups.push(
    await registerHooks(cp, 'validating', 'check', [
      { name: 'check-a.example.com', clientConfig: urlConfig(hooks, '/validate') },
      { name: 'check-b.example.com', clientConfig: urlConfig(hooks, '/validate') },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod({}));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(
    fromClient(hooks).map((q) => q.path),
    ['/mutate', '/validate', '/validate'],
  );
});

test('webhook warnings come back as Warning headers', async () => {
  handlers['/warn'] = () => allow({ warnings: ['image tag latest is discouraged'] });
  cleanups.push(
    await registerHooks(cp, 'validating', 'warn', [
      { name: 'warn.example.com', clientConfig: urlConfig(hooks, '/warn') },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod());
  assert.equal(r.status, 201);
  assert.match(String(r.headers.warning), /299 - "image tag latest is discouraged"/);
});

test('a patch that makes the object invalid fails validation with 422 and stores nothing', async () => {
  handlers['/break'] = () => patchReply([{ op: 'replace', path: '/spec/containers/0/name', value: 'Not_Valid' }]);
  cleanups.push(
    await registerHooks(cp, 'mutating', 'break', [
      { name: 'break.example.com', clientConfig: urlConfig(hooks, '/break') },
    ]),
  );
  const r = await api(cp, 'POST', PODS, pod({}, 'broken'));
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.match(String(r.body.message), /spec\.containers\[0\]\.name/);
  assert.equal((await api(cp, 'GET', `${PODS}/broken`)).status, 404);
});

test('a patch that cannot be applied or decoded is a 500 naming the webhook, whatever the failurePolicy', async () => {
  handlers['/bad'] = () => patchReply([{ op: 'remove', path: '/spec/nothing/here' }]);
  cleanups.push(
    await registerHooks(cp, 'mutating', 'bad', [
      { name: 'bad.example.com', clientConfig: urlConfig(hooks, '/bad'), failurePolicy: 'Ignore' },
    ]),
  );
  let r = await api(cp, 'POST', PODS, pod({}, 'unpatched'));
  assert.equal(r.status, 500, JSON.stringify(r.body));
  assert.match(
    String(r.body.message),
    /^Internal error occurred: admission webhook "bad.example.com" returned an unusable patch: /,
  );

  handlers['/bad'] = () => ({
    response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from('{not json').toString('base64') },
  });
  r = await api(cp, 'POST', PODS, pod({}, 'unpatched'));
  assert.equal(r.status, 500);
  assert.match(
    String(r.body.message),
    /admission webhook "bad.example.com" returned an unusable patch: the patch is not JSON/,
  );
  assert.equal((await api(cp, 'GET', `${PODS}/unpatched`)).status, 404);
});

test('a later mutating denial discards an earlier patch; status updates match pods/status rules', async () => {
  handlers['/label'] = () => patchReply([{ op: 'add', path: '/metadata/labels/seen', value: 'y' }]);
  handlers['/status'] = () => deny('no status writes', 409, 'Conflict');
  cleanups.push(
    await registerHooks(cp, 'mutating', 'sub', [
      { name: 'label.example.com', clientConfig: urlConfig(hooks, '/label'), rules: podRules(['UPDATE']) },
      {
        name: 'status.example.com',
        clientConfig: urlConfig(hooks, '/status'),
        rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/status'] }],
      },
    ]),
  );
  assert.equal((await api(cp, 'POST', PODS, pod({}, 'statusful'))).status, 201);
  // The main resource: only the `pods` rule matches.
  const cur = (await api(cp, 'GET', `${PODS}/statusful`)).body as Obj;
  cur.metadata.annotations = { a: 'b' };
  const main = await api(cp, 'PUT', `${PODS}/statusful`, cur);
  assert.equal(main.status, 200, JSON.stringify(main.body));
  assert.deepEqual(
    fromClient(hooks).map((q) => q.path),
    ['/label'],
  );
  // The status subresource: only `pods/status` matches, and its denial wins.
  const r = await api(
    cp,
    'PATCH',
    `${PODS}/statusful/status`,
    { status: { phase: 'Running' } },
    'application/merge-patch+json',
  );
  assert.equal(r.status, 409);
  assert.equal(fromClient(hooks).at(-1)!.request.subResource, 'status');
  assert.deepEqual(
    fromClient(hooks).map((q) => q.path),
    ['/label', '/status'],
  );
});

test('DELETE is sent with the old object only; a patch on DELETE is refused', async () => {
  handlers['/del'] = (req) =>
    req.operation === 'DELETE' ? deny(`keep ${(req.oldObject as unknown as Obj).metadata.name}`) : allow();
  cleanups.push(
    await registerHooks(cp, 'validating', 'del', [
      { name: 'del.example.com', clientConfig: urlConfig(hooks, '/del'), rules: podRules(['DELETE']) },
    ]),
  );
  assert.equal((await api(cp, 'POST', PODS, pod({}, 'keeper'))).status, 201);
  const r = await api(cp, 'DELETE', `${PODS}/keeper`);
  assert.equal(r.status, 403);
  assert.equal(r.body.message, 'admission webhook "del.example.com" denied the request: keep keeper');
  const req = fromClient(hooks)[0].request;
  assert.equal(req.object, null);
  assert.equal((req.options as { kind?: string }).kind, 'DeleteOptions');
  await cleanups.pop()!();

  handlers['/delpatch'] = () => patchReply([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]);
  cleanups.push(
    await registerHooks(cp, 'mutating', 'delpatch', [
      { name: 'delpatch.example.com', clientConfig: urlConfig(hooks, '/delpatch'), rules: podRules(['DELETE']) },
    ]),
  );
  const r2 = await api(cp, 'DELETE', `${PODS}/keeper`);
  assert.equal(r2.status, 500);
  assert.match(String(r2.body.message), /attempted to modify the object, which is not supported for this operation/);
  assert.equal((await api(cp, 'GET', `${PODS}/keeper`)).status, 200);
});
