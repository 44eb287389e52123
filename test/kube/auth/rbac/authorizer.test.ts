// RBAC on the embedded API server, over HTTP with real bearer tokens: the bootstrap roles behave
// as on kube, and refusals are kube's 403 byte for byte.
// Sources: kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go (RBACAuthorizer),
// pkg/apis/rbac/v1/evaluation_helpers.go (rule matching), pkg/registry/rbac/validation/rule.go
// (bindings → rules), kubernetes/apiserver pkg/endpoints/handlers/responsewriters/errors.go
// (ForbiddenStatusError, RespondWithError's nosniff header), pkg/endpoints/request/requestinfo.go
// (verbs), kubernetes/apimachinery pkg/api/errors/errors.go (NewForbidden).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { callAs } from '../as-user.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const user = (token: string, username: string, groups: string[] = []) => ({ token, user: { username, groups } });

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({
    users: [
      user('view-token', 'view-user'),
      user('edit-token', 'edit-user'),
      user('plain-token', 'plain-user'),
      user('named-token', 'named-user'),
      user('status-token', 'status-user'),
      user('ops-token', 'ops-user', ['ops']),
      user('broken-token', 'broken-user'),
      user('robot-token', 'system:serviceaccount:team:robot', [
        'system:serviceaccounts',
        'system:serviceaccounts:team',
      ]),
    ],
  });
  const admin = (method: string, path: string, body?: unknown) => callAs(cp, cp.token, method, path, body);
  for (const ns of ['team', 'other']) await admin('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const roleBinding = (ns: string, name: string, roleRef: object, subjects: object[]) =>
    admin('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name }, roleRef, subjects });
  const clusterRole = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name });
  const role = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name });
  const userSubject = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
  await roleBinding('team', 'viewers', clusterRole('view'), [userSubject('view-user')]);
  await roleBinding('team', 'editors', clusterRole('edit'), [userSubject('edit-user')]);
  await roleBinding('team', 'robots', clusterRole('view'), [{ kind: 'ServiceAccount', name: 'robot' }]);
  await roleBinding('team', 'broken', clusterRole('no-such-role'), [userSubject('broken-user')]);
  await admin('POST', `${RBAC}/namespaces/team/roles`, {
    metadata: { name: 'one-configmap' },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
    ],
  });
  await roleBinding('team', 'named', role('one-configmap'), [userSubject('named-user')]);
  await admin('POST', `${RBAC}/namespaces/team/roles`, {
    metadata: { name: 'status-reader' },
    rules: [{ apiGroups: ['apps'], resources: ['*/status'], verbs: ['get'] }],
  });
  await roleBinding('team', 'status', role('status-reader'), [userSubject('status-user')]);
  await admin('POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name: 'ops-view' },
    roleRef: clusterRole('view'),
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' }],
  });
  for (const name of ['allowed', 'hidden']) {
    await admin('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name }, data: { a: '1' } });
  }
  await admin('POST', '/api/v1/namespaces/team/secrets', { metadata: { name: 's' }, stringData: { k: 'v' } });
  // view, edit and admin are filled in by the aggregation controller.
  await waitFor(async () => {
    const view = await admin('GET', `${RBAC}/clusterroles/view`);
    return Array.isArray(view.json.rules) && view.json.rules.length > 0;
  }, 'view aggregated');
});
after(async () => {
  await cp?.stop();
});

function forbiddenStatus(message: string, details: Record<string, string>) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Forbidden',
    details,
    code: 403,
  };
}

async function assertForbidden(
  token: string | undefined,
  method: string,
  path: string,
  message: string,
  details: Record<string, string>,
  body?: unknown,
) {
  const r = token === undefined ? await anonymous(method, path) : await callAs(cp, token, method, path, body);
  assert.equal(r.status, 403, `${method} ${path}: ${r.body}`);
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.deepEqual(JSON.parse(r.body), forbiddenStatus(message, details));
}

/** A request without credentials; resolves on the response head (watches stay open otherwise). */
function anonymous(
  method: string,
  path: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, cp.url), { method, ca: cp.caPem }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The status of a request that may stream (a watch): read from the head, then the connection is dropped. */
function statusOf(token: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      { ca: cp.caPem, headers: { Authorization: `Bearer ${token}` } },
      (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    req.end();
  });
}

test('view reads pods and configmaps in its namespace but not Secrets', async () => {
  assert.equal((await callAs(cp, 'view-token', 'GET', '/api/v1/namespaces/team/pods')).status, 200);
  assert.equal((await callAs(cp, 'view-token', 'GET', '/api/v1/namespaces/team/configmaps/allowed')).status, 200);
  await assertForbidden(
    'view-token',
    'GET',
    '/api/v1/namespaces/team/secrets',
    'secrets is forbidden: User "view-user" cannot list resource "secrets" in API group "" in the namespace "team"',
    { kind: 'secrets' },
  );
  await assertForbidden(
    'view-token',
    'GET',
    '/api/v1/namespaces/team/secrets/s',
    'secrets "s" is forbidden: User "view-user" cannot get resource "secrets" in API group "" in the namespace "team"',
    { name: 's', kind: 'secrets' },
  );
  await assertForbidden(
    'view-token',
    'POST',
    '/api/v1/namespaces/team/configmaps',
    'configmaps is forbidden: User "view-user" cannot create resource "configmaps" in API group "" in the namespace "team"',
    { kind: 'configmaps' },
    { metadata: { name: 'nope' } },
  );
});

test('a RoleBinding to a ClusterRole is effective only in its namespace', async () => {
  await assertForbidden(
    'view-token',
    'GET',
    '/api/v1/namespaces/other/pods',
    'pods is forbidden: User "view-user" cannot list resource "pods" in API group "" in the namespace "other"',
    { kind: 'pods' },
  );
  await assertForbidden(
    'view-token',
    'GET',
    '/api/v1/pods',
    'pods is forbidden: User "view-user" cannot list resource "pods" in API group "" at the cluster scope',
    { kind: 'pods' },
  );
  await assertForbidden(
    'view-token',
    'GET',
    '/apis/apps/v1/namespaces/other/deployments',
    'deployments.apps is forbidden: User "view-user" cannot list resource "deployments" in API group "apps" in the namespace "other"',
    { group: 'apps', kind: 'deployments' },
  );
});

test('a ClusterRoleBinding to a group applies in every namespace and across them', async () => {
  assert.equal((await callAs(cp, 'ops-token', 'GET', '/api/v1/namespaces/other/pods')).status, 200);
  assert.equal((await callAs(cp, 'ops-token', 'GET', '/api/v1/pods')).status, 200);
  assert.equal((await callAs(cp, 'ops-token', 'GET', '/apis/apps/v1/deployments')).status, 200);
});

test('a ServiceAccount subject without a namespace means the binding namespace', async () => {
  assert.equal((await callAs(cp, 'robot-token', 'GET', '/api/v1/namespaces/team/pods')).status, 200);
  await assertForbidden(
    'robot-token',
    'GET',
    '/api/v1/namespaces/other/pods',
    'pods is forbidden: User "system:serviceaccount:team:robot" cannot list resource "pods" in API group "" in the namespace "other"',
    { kind: 'pods' },
  );
});

test('edit writes pods but may not touch Roles', async () => {
  const pod = {
    metadata: { name: 'edited' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
  const created = await callAs(cp, 'edit-token', 'POST', '/api/v1/namespaces/team/pods', pod);
  assert.equal(created.status, 201, created.body);
  assert.equal((await callAs(cp, 'edit-token', 'GET', '/api/v1/namespaces/team/secrets')).status, 200);
  await assertForbidden(
    'edit-token',
    'POST',
    `${RBAC}/namespaces/team/roles`,
    'roles.rbac.authorization.k8s.io is forbidden: User "edit-user" cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "team"',
    { group: 'rbac.authorization.k8s.io', kind: 'roles' },
    { metadata: { name: 'r' }, rules: [] },
  );
  // Exec is edit's (create pods/exec), not view's.
  await assertForbidden(
    'view-token',
    'POST',
    '/api/v1/namespaces/team/pods/edited/exec?command=true&stdout=true',
    'pods "edited" is forbidden: User "view-user" cannot create resource "pods/exec" in API group "" in the namespace "team"',
    { name: 'edited', kind: 'pods' },
  );
});

test('watches are authorized as watch: ?watch=1, ?watch=true and /watch/ paths', async () => {
  assert.equal(await statusOf('view-token', '/api/v1/namespaces/team/pods?watch=1'), 200);
  assert.equal(await statusOf('view-token', '/api/v1/watch/namespaces/team/pods'), 200);
  // named-user may get and list one ConfigMap by name, never watch.
  const denied = 'User "named-user" cannot watch resource "configmaps" in API group "" in the namespace "team"';
  for (const path of [
    '/api/v1/namespaces/team/configmaps?watch=1',
    '/api/v1/namespaces/team/configmaps?watch=true',
    '/api/v1/watch/namespaces/team/configmaps',
  ]) {
    await assertForbidden('named-token', 'GET', path, `configmaps is forbidden: ${denied}`, { kind: 'configmaps' });
  }
  // A watch narrowed to one name by the field selector is authorized with that name.
  await assertForbidden(
    'named-token',
    'GET',
    '/api/v1/namespaces/team/configmaps?watch=1&fieldSelector=metadata.name%3Dallowed',
    `configmaps "allowed" is forbidden: ${denied}`,
    { name: 'allowed', kind: 'configmaps' },
  );
  assert.equal((await callAs(cp, 'named-token', 'GET', '/api/v1/namespaces/team/configmaps?watch=false')).status, 403);
});

test('resourceNames: a named get is allowed, a list only when narrowed to that name', async () => {
  assert.equal((await callAs(cp, 'named-token', 'GET', '/api/v1/namespaces/team/configmaps/allowed')).status, 200);
  await assertForbidden(
    'named-token',
    'GET',
    '/api/v1/namespaces/team/configmaps/hidden',
    'configmaps "hidden" is forbidden: User "named-user" cannot get resource "configmaps" in API group "" in the namespace "team"',
    { name: 'hidden', kind: 'configmaps' },
  );
  await assertForbidden(
    'named-token',
    'GET',
    '/api/v1/namespaces/team/configmaps',
    'configmaps is forbidden: User "named-user" cannot list resource "configmaps" in API group "" in the namespace "team"',
    { kind: 'configmaps' },
  );
  const narrowed = await callAs(
    cp,
    'named-token',
    'GET',
    '/api/v1/namespaces/team/configmaps?fieldSelector=metadata.name=allowed',
  );
  assert.equal(narrowed.status, 200, narrowed.body);
  assert.deepEqual(
    (narrowed.json.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name),
    ['allowed'],
  );
});

test('a subresource needs its own rule: pods does not cover pods/log', async () => {
  assert.equal((await callAs(cp, 'named-token', 'GET', '/api/v1/namespaces/team/pods/edited')).status, 200);
  await assertForbidden(
    'named-token',
    'GET',
    '/api/v1/namespaces/team/pods/edited/log',
    'pods "edited" is forbidden: User "named-user" cannot get resource "pods/log" in API group "" in the namespace "team"',
    { name: 'edited', kind: 'pods' },
  );
  await assertForbidden(
    'named-token',
    'GET',
    '/api/v1/namespaces/team/pods/edited/status',
    'pods "edited" is forbidden: User "named-user" cannot get resource "pods/status" in API group "" in the namespace "team"',
    { name: 'edited', kind: 'pods' },
  );
  // view carries pods/log.
  const log = await callAs(cp, 'view-token', 'GET', '/api/v1/namespaces/team/pods/edited/log');
  assert.notEqual(log.status, 403, log.body);
});

test('*/status covers every resource status in the rule group, and nothing else', async () => {
  const deployment = {
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
  assert.equal(
    (await callAs(cp, cp.token, 'POST', '/apis/apps/v1/namespaces/team/deployments', deployment)).status,
    201,
  );
  assert.equal(
    (await callAs(cp, 'status-token', 'GET', '/apis/apps/v1/namespaces/team/deployments/web/status')).status,
    200,
  );
  await assertForbidden(
    'status-token',
    'GET',
    '/apis/apps/v1/namespaces/team/deployments/web',
    'deployments.apps "web" is forbidden: User "status-user" cannot get resource "deployments" in API group "apps" in the namespace "team"',
    { name: 'web', group: 'apps', kind: 'deployments' },
  );
  await assertForbidden(
    'status-token',
    'GET',
    '/api/v1/namespaces/team/pods/edited/status',
    'pods "edited" is forbidden: User "status-user" cannot get resource "pods/status" in API group "" in the namespace "team"',
    { name: 'edited', kind: 'pods' },
  );
});

test('non-resource paths: discovery for authenticated users, health and version for everyone', async () => {
  for (const path of ['/api', '/apis', '/api/v1', '/version', '/healthz']) {
    assert.equal((await callAs(cp, 'plain-token', 'GET', path)).status, 200, path);
  }
  await assertForbidden(
    'plain-token',
    'GET',
    '/metrics',
    'forbidden: User "plain-user" cannot get path "/metrics"',
    {},
  );
  for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
    assert.equal((await anonymous('GET', path)).status, 200, path);
  }
  await assertForbidden(undefined, 'GET', '/api', 'forbidden: User "system:anonymous" cannot get path "/api"', {});
  await assertForbidden(
    undefined,
    'GET',
    '/api/v1/namespaces/team/pods',
    'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "team"',
    { kind: 'pods' },
  );
});

test('a binding to a missing role: the denial carries the resolution error', async () => {
  await assertForbidden(
    'broken-token',
    'GET',
    '/api/v1/namespaces/team/pods',
    'pods is forbidden: User "broken-user" cannot list resource "pods" in API group "" in the namespace "team": RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found',
    { kind: 'pods' },
  );
});

for (const version of ['1.27', '1.33']) {
  test(`kubectl ${version} --token of a viewer: Error from server (Forbidden) for secrets`, async () => {
    const r = await kubectl(cp.kubeconfigPath, ['--token=view-token', 'get', 'secrets', '-n', 'team'], { version });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      'Error from server (Forbidden): secrets is forbidden: User "view-user" cannot list resource "secrets" in API group "" in the namespace "team"',
    );
    const ok = await kubectl(
      cp.kubeconfigPath,
      ['--token=view-token', 'get', 'configmaps', '-n', 'team', '-o', 'name'],
      {
        version,
      },
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /configmap\/allowed/);
  });
}
