// One rule against one request, and the allow reasons naming the binding that allowed it.
// Sources: kubernetes/kubernetes pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches,
// APIGroupMatches, ResourceMatches, ResourceNameMatches, NonResourceURLMatches),
// plugin/pkg/auth/authorizer/rbac/rbac.go (allow reason), pkg/registry/rbac/validation/rule.go
// (binding describers, role lookups' not-found texts), apimachinery pkg/util/errors (aggregate text).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Attributes } from '../../../../src/kube/auth/types.ts';
import { ANONYMOUS, type UserInfo } from '../../../../src/kube/auth/user.ts';
import { RbacAuthorizer, RuleResolver, aggregateErrors, ruleAllows } from '../../../../src/kube/auth/rbac/index.ts';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { callAs } from '../as-user.ts';

const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };

function resource(verb: string, resourceName: string, extra: Partial<Attributes> = {}): Attributes {
  const [res, sub = ''] = resourceName.split('/');
  return {
    user: bob,
    verb,
    resourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: res,
    subresource: sub,
    namespace: 'ns',
    name: '',
    ...extra,
  };
}

function path(p: string, verb = 'get'): Attributes {
  return { ...resource(verb, ''), resourceRequest: false, path: p };
}

test('resources: exact, res/sub, */sub and * — a resource never covers its subresources', () => {
  const pods = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  assert.equal(ruleAllows(resource('get', 'pods'), pods), true);
  assert.equal(ruleAllows(resource('get', 'pods/log'), pods), false);
  assert.equal(ruleAllows(resource('get', 'pods/log'), { ...pods, resources: ['pods/log'] }), true);
  assert.equal(ruleAllows(resource('get', 'deployments/status'), { ...pods, resources: ['*/status'] }), true);
  assert.equal(ruleAllows(resource('get', 'deployments'), { ...pods, resources: ['*/status'] }), false);
  assert.equal(ruleAllows(resource('get', 'deployments/scale'), { ...pods, resources: ['*/status'] }), false);
  assert.equal(ruleAllows(resource('get', 'pods/exec'), { ...pods, resources: ['*'] }), true);
});

test('verbs and groups: exact or *', () => {
  const rule = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] };
  assert.equal(ruleAllows(resource('list', 'deployments', { apiGroup: 'apps' }), rule), true);
  assert.equal(ruleAllows(resource('watch', 'deployments', { apiGroup: 'apps' }), rule), false);
  assert.equal(ruleAllows(resource('list', 'deployments', { apiGroup: 'extensions' }), rule), false);
  assert.equal(
    ruleAllows(resource('watch', 'deployments', { apiGroup: 'x' }), { ...rule, apiGroups: ['*'], verbs: ['*'] }),
    true,
  );
});

test('resourceNames: only requests naming one of them', () => {
  const rule = { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get', 'list'] };
  assert.equal(ruleAllows(resource('get', 'configmaps', { name: 'a' }), rule), true);
  assert.equal(ruleAllows(resource('get', 'configmaps', { name: 'b' }), rule), false);
  assert.equal(ruleAllows(resource('list', 'configmaps'), rule), false);
});

test('non-resource URLs: exact, * and trailing-* prefixes; resource rules never match paths', () => {
  const rule = { nonResourceURLs: ['/healthz', '/apis/*'], verbs: ['get'] };
  assert.equal(ruleAllows(path('/healthz'), rule), true);
  assert.equal(ruleAllows(path('/healthz/ping'), rule), false);
  assert.equal(ruleAllows(path('/apis/apps/v1'), rule), true);
  assert.equal(ruleAllows(path('/apis'), rule), false);
  assert.equal(ruleAllows(path('/healthz', 'post'), rule), false);
  assert.equal(ruleAllows(path('/anything'), { nonResourceURLs: ['*'], verbs: ['*'] }), true);
  assert.equal(ruleAllows(path('/healthz'), { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }), false);
});

test('resolution errors: one as is, several in brackets, duplicates once', () => {
  assert.equal(aggregateErrors(['a']), 'a');
  assert.equal(aggregateErrors(['a', 'a']), 'a');
  assert.equal(aggregateErrors(['a', 'b', 'a']), '[a, b]');
});

let cp: TestCluster;
let resolver: RuleResolver;
before(async () => {
  cp = await startTestCluster();
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await callAs(cp, cp.token, 'POST', '/api/v1/namespaces', { metadata: { name: 'ns' } });
  await callAs(cp, cp.token, 'POST', `${rbac}/namespaces/ns/roles`, {
    metadata: { name: 'reader' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  });
  await callAs(cp, cp.token, 'POST', `${rbac}/namespaces/ns/rolebindings`, {
    metadata: { name: 'robots' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
  });
  await callAs(cp, cp.token, 'POST', `${rbac}/namespaces/ns/rolebindings`, {
    metadata: { name: 'dangling' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  await callAs(cp, cp.token, 'POST', `${rbac}/clusterrolebindings`, {
    metadata: { name: 'dangling' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'gone' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
  });
  resolver = new RuleResolver(cp.internals.storage, cp.internals.catalog);
  resolver.start();
});
after(async () => {
  resolver?.stop();
  await cp?.stop();
});

test('allow reasons name the binding, its role and the matching subject (bindings in name order)', () => {
  const authorizer = new RbacAuthorizer(resolver);
  assert.deepEqual(authorizer.authorize(path('/healthz')), {
    allowed: true,
    reason:
      'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
  });
  assert.deepEqual(authorizer.authorize({ ...path('/version'), user: ANONYMOUS }), {
    allowed: true,
    reason:
      'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
  });
  const robot: UserInfo = { username: 'system:serviceaccount:ns:robot', groups: ['system:serviceaccounts'] };
  assert.deepEqual(authorizer.authorize({ ...resource('get', 'pods'), user: robot }), {
    allowed: true,
    reason: 'RBAC: allowed by RoleBinding "robots/ns" of Role "reader" to ServiceAccount "robot/ns"',
  });
});

test('denials carry the roles that did not resolve, cluster-wide first', () => {
  const authorizer = new RbacAuthorizer(resolver);
  assert.deepEqual(authorizer.authorize(resource('list', 'secrets')), {
    allowed: false,
    reason:
      'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone" not found]',
  });
  assert.deepEqual(authorizer.authorize(resource('list', 'secrets', { namespace: '' })), {
    allowed: false,
    reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
  });
  const { rules, errors } = resolver.rulesFor({ username: 'system:serviceaccount:ns:robot', groups: [] }, 'ns');
  assert.deepEqual(rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
  assert.deepEqual(errors, []);
});
