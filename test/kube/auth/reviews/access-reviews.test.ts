// SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectRulesReview over HTTP, for the admin and for a user RBAC restricts. Expected texts:
// kubernetes/kubernetes:pkg/registry/authorization/*/rest.go (status fields, "no namespace on
// request"), pkg/apis/authorization/validation/validation.go (422 messages; the internal object's
// kind is empty when validated, hence `.authorization.k8s.io ""`), and
// plugin/pkg/auth/authorizer/rbac/rbac.go (allow reasons).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { callAs } from '../as-user.ts';

const API = '/apis/authorization.k8s.io/v1';
const ALICE = 'alice-token';
const NS = 'team';

function ssar(spec: object) {
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec };
}

describe('access reviews', () => {
  let cp: TestCluster;
  let admin: string;
  const create = async (path: string, obj: object) => {
    const r = await callAs(cp, admin, 'POST', path, obj);
    assert.equal(r.status, 201, r.body);
  };

  before(async () => {
    cp = await startTestCluster({ nodes: 0, users: [{ token: ALICE, user: { username: 'alice', groups: [] } }] });
    admin = cp.token;
    await create('/api/v1/namespaces', { metadata: { name: NS } });
    await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
      metadata: { name: 'pod-reader' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      ],
    });
    await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'read-pods' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    });
  });
  after(() => cp.stop());

  test('discovery lists the four reviews, create only', async () => {
    const r = await callAs(cp, admin, 'GET', API);
    assert.equal(r.status, 200, r.body);
    const resources = (r.json.resources as Array<Record<string, unknown>>).map((x) => [
      x.name,
      x.namespaced,
      x.kind,
      x.verbs,
    ]);
    assert.deepEqual(resources, [
      ['localsubjectaccessreviews', true, 'LocalSubjectAccessReview', ['create']],
      ['selfsubjectaccessreviews', false, 'SelfSubjectAccessReview', ['create']],
      ['selfsubjectrulesreviews', false, 'SelfSubjectRulesReview', ['create']],
      ['subjectaccessreviews', false, 'SubjectAccessReview', ['create']],
    ]);
    const groups = (await callAs(cp, admin, 'GET', '/apis')).json.groups as Array<{ name: string }>;
    assert.ok(groups.some((g) => g.name === 'authorization.k8s.io'));
    const get = await callAs(cp, admin, 'GET', `${API}/selfsubjectaccessreviews`);
    assert.equal(get.status, 405);
  });

  test('SelfSubjectAccessReview: allowed with RBAC reason, denied without one', async () => {
    const attrs = { namespace: NS, verb: 'get', resource: 'pods', name: 'web' };
    let r = await callAs(cp, ALICE, 'POST', `${API}/selfsubjectaccessreviews`, ssar({ resourceAttributes: attrs }));
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json.kind, 'SelfSubjectAccessReview');
    assert.equal(r.json.apiVersion, 'authorization.k8s.io/v1');
    assert.deepEqual(r.json.spec, { resourceAttributes: attrs });
    assert.deepEqual(r.json.status, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "read-pods/team" of Role "pod-reader" to User "alice"',
    });

    r = await callAs(
      cp,
      ALICE,
      'POST',
      `${API}/selfsubjectaccessreviews`,
      ssar({ resourceAttributes: { ...attrs, verb: 'delete' } }),
    );
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.status, { allowed: false });

    // A subresource is its own resource: pods/log is granted, pods/exec is not.
    const sub = async (subresource: string, verb: string) =>
      (
        await callAs(
          cp,
          ALICE,
          'POST',
          `${API}/selfsubjectaccessreviews`,
          ssar({
            resourceAttributes: { namespace: NS, verb, resource: 'pods', subresource },
          }),
        )
      ).json.status as { allowed: boolean };
    assert.equal((await sub('log', 'get')).allowed, true);
    assert.equal((await sub('exec', 'create')).allowed, false);

    // The admin is allowed by system:masters ahead of RBAC.
    r = await callAs(
      cp,
      admin,
      'POST',
      `${API}/selfsubjectaccessreviews`,
      ssar({ resourceAttributes: { ...attrs, verb: 'delete' } }),
    );
    assert.equal((r.json.status as { allowed: boolean }).allowed, true);
  });

  test('SelfSubjectAccessReview: non-resource paths', async () => {
    const review = async (path: string) =>
      (
        await callAs(
          cp,
          ALICE,
          'POST',
          `${API}/selfsubjectaccessreviews`,
          ssar({ nonResourceAttributes: { verb: 'get', path } }),
        )
      ).json.status as { allowed: boolean; reason?: string };
    assert.deepEqual(await review('/apis/apps'), {
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
    assert.deepEqual(await review('/logs'), { allowed: false });
  });

  test('exactly one of resourceAttributes and nonResourceAttributes (422)', async () => {
    let r = await callAs(cp, ALICE, 'POST', `${API}/selfsubjectaccessreviews`, ssar({}));
    assert.equal(r.status, 422, r.body);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(
      r.json.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    r = await callAs(
      cp,
      ALICE,
      'POST',
      `${API}/selfsubjectaccessreviews`,
      ssar({
        resourceAttributes: { verb: 'get', resource: 'pods' },
        nonResourceAttributes: { verb: 'get', path: '/logs' },
      }),
    );
    assert.equal(r.status, 422, r.body);
    assert.equal(
      r.json.message,
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/logs", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
  });

  test('SubjectAccessReview: about another user, admin only', async () => {
    const sar = (spec: object) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    const attrs = { namespace: NS, verb: 'list', resource: 'pods' };
    let r = await callAs(
      cp,
      admin,
      'POST',
      `${API}/subjectaccessreviews`,
      sar({ user: 'alice', resourceAttributes: attrs }),
    );
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.status, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "read-pods/team" of Role "pod-reader" to User "alice"',
    });
    r = await callAs(
      cp,
      admin,
      'POST',
      `${API}/subjectaccessreviews`,
      sar({ user: 'alice', resourceAttributes: { ...attrs, namespace: 'default' } }),
    );
    assert.deepEqual(r.json.status, { allowed: false });
    // Groups are taken as given: system:masters is allowed by the privileged-group authorizer.
    r = await callAs(
      cp,
      admin,
      'POST',
      `${API}/subjectaccessreviews`,
      sar({ user: 'carol', groups: ['system:masters'], resourceAttributes: attrs }),
    );
    assert.deepEqual(r.json.status, { allowed: true });

    r = await callAs(cp, admin, 'POST', `${API}/subjectaccessreviews`, sar({}));
    assert.equal(r.status, 422, r.body);
    assert.equal(
      r.json.message,
      '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );

    // Asking about others is itself authorized: alice may not.
    r = await callAs(
      cp,
      ALICE,
      'POST',
      `${API}/subjectaccessreviews`,
      sar({ user: 'alice', resourceAttributes: attrs }),
    );
    assert.equal(r.status, 403, r.body);
    assert.equal(
      r.json.message,
      'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
  });

  test('LocalSubjectAccessReview: the namespace must match', async () => {
    const lsar = (spec: object) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec });
    const path = `${API}/namespaces/${NS}/localsubjectaccessreviews`;
    let r = await callAs(
      cp,
      admin,
      'POST',
      path,
      lsar({ user: 'alice', resourceAttributes: { namespace: NS, verb: 'get', resource: 'pods' } }),
    );
    assert.equal(r.status, 201, r.body);
    assert.equal((r.json.metadata as { namespace: string }).namespace, NS);
    assert.equal((r.json.status as { allowed: boolean }).allowed, true);

    r = await callAs(
      cp,
      admin,
      'POST',
      path,
      lsar({ user: 'alice', resourceAttributes: { namespace: 'other', verb: 'get', resource: 'pods' } }),
    );
    assert.equal(r.status, 422, r.body);
    assert.equal(
      r.json.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
    );
    r = await callAs(
      cp,
      admin,
      'POST',
      path,
      lsar({ user: 'alice', nonResourceAttributes: { verb: 'get', path: '/logs' } }),
    );
    assert.equal(r.status, 422, r.body);
    assert.equal(
      r.json.message,
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/logs", Verb:"get"}: disallowed on this kind of request',
    );
  });

  test('SelfSubjectRulesReview: cluster rules plus the namespace rules', async () => {
    const ssrr = (namespace: string) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace },
    });
    let r = await callAs(cp, ALICE, 'POST', `${API}/selfsubjectrulesreviews`, ssrr(NS));
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.spec, {});
    const status = r.json.status as {
      resourceRules: object[];
      nonResourceRules: object[];
      incomplete: boolean;
      evaluationError?: string;
    };
    assert.equal(status.incomplete, false);
    assert.equal(status.evaluationError, undefined);
    assert.deepEqual(
      status.resourceRules.filter((x) => JSON.stringify(x).includes('pods')),
      [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      ],
    );
    // system:basic-user (create the self reviews) and system:discovery, bound to system:authenticated.
    const basic = status.resourceRules.find((x) =>
      ((x as { resources?: string[] }).resources ?? []).includes('selfsubjectrulesreviews'),
    );
    assert.deepEqual((basic as { verbs: string[] } | undefined)?.verbs, ['create']);
    assert.ok(status.nonResourceRules.some((x) => JSON.stringify(x).includes('"/healthz"')));

    // Another namespace: the RoleBinding of `team` does not apply.
    r = await callAs(cp, ALICE, 'POST', `${API}/selfsubjectrulesreviews`, ssrr('default'));
    assert.ok(!JSON.stringify(r.json.status).includes('"pods"'));

    r = await callAs(cp, ALICE, 'POST', `${API}/selfsubjectrulesreviews`, ssrr(''));
    assert.equal(r.status, 400, r.body);
    assert.equal(r.json.message, 'no namespace on request');
  });

  test('a binding to a missing role: the reviews report the resolution error', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'broken' } });
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/broken/rolebindings', {
      metadata: { name: 'to-ghost' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ghost' },
    });
    const review = await callAs(cp, ALICE, 'POST', `${API}/selfsubjectrulesreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'broken' },
    });
    const status = review.json.status as { incomplete: boolean; evaluationError?: string };
    assert.deepEqual(
      { incomplete: status.incomplete, evaluationError: status.evaluationError },
      { incomplete: false, evaluationError: 'role.rbac.authorization.k8s.io "ghost" not found' },
    );
    const r = await callAs(
      cp,
      ALICE,
      'POST',
      `${API}/selfsubjectaccessreviews`,
      ssar({
        resourceAttributes: { namespace: 'broken', verb: 'get', resource: 'pods' },
      }),
    );
    const s = r.json.status as { allowed: boolean; reason: string };
    assert.equal(s.allowed, false);
    assert.match(s.reason, /^RBAC: \[?role\.rbac\.authorization\.k8s\.io "ghost" not found\]?$/);
  });
});
