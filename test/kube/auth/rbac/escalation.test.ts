// RBAC escalation prevention over HTTP: a user may write a Role/ClusterRole only with rights they
// hold (or `escalate`), bind a role only if they hold its rights (or `bind`); aggregationRule needs
// everything; system:masters is never restricted. Expected texts: kubernetes/kubernetes
// pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation's message), policy_compact.go and
// pkg/apis/rbac/v1/evaluation_helpers.go (CompactString), pkg/registry/rbac/clusterrole/policybased/
// storage.go (the aggregationRule message); coverage follows
// kubernetes/component-helpers:auth/rbac/validation/policy_comparator.go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { callAs } from '../as-user.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ALICE = 'alice-token';
const GRANT =
  'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:';
const RBAC_WRITE = {
  apiGroups: ['rbac.authorization.k8s.io'],
  resources: ['roles', 'rolebindings'],
  verbs: ['create', 'update', 'patch', 'get', 'list', 'delete'],
};

type Rule = {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
};

describe('RBAC escalation prevention', () => {
  let cp: TestCluster;
  const admin = (method: string, path: string, body?: unknown) => callAs(cp, cp.token, method, path, body);
  const asAlice = (method: string, path: string, body?: unknown) => callAs(cp, ALICE, method, path, body);
  const must = async (p: ReturnType<typeof admin>) => {
    const r = await p;
    assert.ok(r.status === 200 || r.status === 201, r.body);
    return r;
  };
  const role = (name: string, rules: Rule[]) => ({ metadata: { name }, rules });
  const bindingTo = (name: string, kind: 'Role' | 'ClusterRole', roleName: string) => ({
    metadata: { name },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  });
  /** A namespace where alice holds `rules` through a Role and RoleBinding the admin creates. */
  const namespaceWith = async (ns: string, rules: Rule[]) => {
    await must(admin('POST', '/api/v1/namespaces', { metadata: { name: ns } }));
    await must(admin('POST', `${RBAC}/namespaces/${ns}/roles`, role('alice-rights', rules)));
    await must(
      admin('POST', `${RBAC}/namespaces/${ns}/rolebindings`, bindingTo('alice-rights', 'Role', 'alice-rights')),
    );
  };
  const assertForbidden = (r: Awaited<ReturnType<typeof admin>>, message: string, details: object) => {
    assert.equal(r.status, 403, r.body);
    assert.equal(r.json.reason, 'Forbidden');
    assert.equal(r.json.message, message);
    assert.deepEqual(r.json.details, details);
  };

  before(async () => {
    cp = await startTestCluster({ nodes: 0, users: [{ token: ALICE, user: { username: 'alice', groups: [] } }] });
  });
  after(() => cp.stop());

  test('a Role granting more than the user holds is refused with the missing rules', async () => {
    await namespaceWith('limited', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }, RBAC_WRITE]);
    const r = await asAlice(
      'POST',
      `${RBAC}/namespaces/limited/roles`,
      role('r', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }]),
    );
    assertForbidden(
      r,
      `roles.rbac.authorization.k8s.io "r" is forbidden: ${GRANT}\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`,
      {
        name: 'r',
        group: 'rbac.authorization.k8s.io',
        kind: 'roles',
      },
    );

    // Missing rights are merged per group/resource and listed sorted, one per line.
    const wide = await asAlice(
      'POST',
      `${RBAC}/namespaces/limited/roles`,
      role('wide', [
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
        { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'delete'] },
      ]),
    );
    assert.equal(wide.status, 403, wide.body);
    assert.equal(
      wide.json.message,
      `roles.rbac.authorization.k8s.io "wide" is forbidden: ${GRANT}\n` +
        '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "delete"]}\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}',
    );
  });

  test('a Role within the user rights is created; updating it beyond them is refused', async () => {
    const path = `${RBAC}/namespaces/limited/roles`;
    const created = await asAlice(
      'POST',
      path,
      role('reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
    );
    assert.equal(created.status, 201, created.body);

    const put = await asAlice('PUT', `${path}/reader`, {
      ...created.json,
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'delete'] }],
    });
    assert.equal(put.status, 403, put.body);
    assert.equal(
      put.json.message,
      `roles.rbac.authorization.k8s.io "reader" is forbidden: ${GRANT}\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`,
    );
    // A label change keeps the rules the user holds: allowed.
    const relabel = await asAlice('PUT', `${path}/reader`, {
      ...created.json,
      metadata: { ...(created.json.metadata as object), labels: { team: 'a' } },
    });
    assert.equal(relabel.status, 200, relabel.body);
  });

  test('coverage honours *, */subresource and resourceNames', async () => {
    await namespaceWith('wild', [
      { apiGroups: ['apps'], resources: ['*/scale'], verbs: ['*'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'], verbs: ['get'] },
      RBAC_WRITE,
    ]);
    const attempt = (name: string, rule: Rule) => asAlice('POST', `${RBAC}/namespaces/wild/roles`, role(name, [rule]));
    assert.equal(
      (await attempt('scale', { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['update'] })).status,
      201,
    );
    assert.equal(
      (
        await attempt('one-cm', {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['settings'],
          verbs: ['get'],
        })
      ).status,
      201,
    );
    const main = await attempt('deploy', { apiGroups: ['apps'], resources: ['deployments'], verbs: ['update'] });
    assert.equal(
      main.json.message,
      `roles.rbac.authorization.k8s.io "deploy" is forbidden: ${GRANT}\n{APIGroups:["apps"], Resources:["deployments"], Verbs:["update"]}`,
    );
    const allCm = await attempt('all-cm', { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] });
    assert.equal(
      allCm.json.message,
      `roles.rbac.authorization.k8s.io "all-cm" is forbidden: ${GRANT}\n{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}`,
    );
  });

  test('an edit-bound user cannot write a Role granting what edit lacks', async () => {
    await namespaceWith('editors', [RBAC_WRITE]);
    await must(
      admin('POST', `${RBAC}/namespaces/editors/rolebindings`, bindingTo('alice-edit', 'ClusterRole', 'edit')),
    );
    // edit's rules are filled in by the aggregation controller.
    await waitFor(async () => {
      const r = await asAlice('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        spec: { resourceAttributes: { namespace: 'editors', verb: 'delete', resource: 'pods' } },
      });
      return (r.json.status as { allowed: boolean } | undefined)?.allowed === true;
    }, 'edit to be aggregated');
    const ok = await asAlice(
      'POST',
      `${RBAC}/namespaces/editors/roles`,
      role('cm-writer', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'delete'] }]),
    );
    assert.equal(ok.status, 201, ok.body);
    const more = await asAlice(
      'POST',
      `${RBAC}/namespaces/editors/roles`,
      role('node-reader', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]),
    );
    assert.equal(more.status, 403, more.body);
    assert.equal(
      more.json.message,
      `roles.rbac.authorization.k8s.io "node-reader" is forbidden: ${GRANT}\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}`,
    );
  });

  test('`escalate` on roles lifts the check', async () => {
    await namespaceWith('esc', [RBAC_WRITE]);
    const everything = role('anything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
    const refused = await asAlice('POST', `${RBAC}/namespaces/esc/roles`, everything);
    assert.equal(refused.status, 403, refused.body);
    await must(
      admin(
        'POST',
        `${RBAC}/namespaces/esc/roles`,
        role('may-escalate', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }]),
      ),
    );
    await must(admin('POST', `${RBAC}/namespaces/esc/rolebindings`, bindingTo('may-escalate', 'Role', 'may-escalate')));
    const r = await asAlice('POST', `${RBAC}/namespaces/esc/roles`, everything);
    assert.equal(r.status, 201, r.body);
  });

  test('bindings: the referenced role must be held, or `bind` granted on it; a missing role is 404', async () => {
    await namespaceWith('binds', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }, RBAC_WRITE]);
    await must(
      admin(
        'POST',
        `${RBAC}/clusterroles`,
        role('secret-deleter', [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }]),
      ),
    );
    const path = `${RBAC}/namespaces/binds/rolebindings`;
    const refused = await asAlice('POST', path, bindingTo('b1', 'ClusterRole', 'secret-deleter'));
    assertForbidden(
      refused,
      `rolebindings.rbac.authorization.k8s.io "b1" is forbidden: ${GRANT}\n{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}`,
      { name: 'b1', group: 'rbac.authorization.k8s.io', kind: 'rolebindings' },
    );
    // A role whose rights the user holds may be bound without `bind`.
    const own = await asAlice('POST', path, bindingTo('again', 'Role', 'alice-rights'));
    assert.equal(own.status, 201, own.body);

    await must(
      admin(
        'POST',
        `${RBAC}/namespaces/binds/roles`,
        role('may-bind', [
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles'],
            resourceNames: ['secret-deleter'],
            verbs: ['bind'],
          },
        ]),
      ),
    );
    await must(admin('POST', path, bindingTo('may-bind', 'Role', 'may-bind')));
    const bound = await asAlice('POST', path, bindingTo('b1', 'ClusterRole', 'secret-deleter'));
    assert.equal(bound.status, 201, bound.body);

    const missingRole = await asAlice('POST', path, bindingTo('b2', 'Role', 'nope'));
    assert.equal(missingRole.status, 404, missingRole.body);
    assert.equal(missingRole.json.message, 'roles.rbac.authorization.k8s.io "nope" not found');
    const missingClusterRole = await asAlice('POST', path, bindingTo('b3', 'ClusterRole', 'nope'));
    assert.equal(missingClusterRole.status, 404, missingClusterRole.body);
    assert.equal(missingClusterRole.json.message, 'clusterroles.rbac.authorization.k8s.io "nope" not found');
  });

  test('cluster scope: ClusterRoleBindings and aggregationRule', async () => {
    await must(
      admin(
        'POST',
        `${RBAC}/clusterroles`,
        role('cluster-rbac-writer', [
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles', 'clusterrolebindings'],
            verbs: ['create', 'get', 'update'],
          },
          { nonResourceURLs: ['/logs/*'], verbs: ['get'] },
        ]),
      ),
    );
    await must(
      admin(
        'POST',
        `${RBAC}/clusterrolebindings`,
        bindingTo('alice-cluster-rbac', 'ClusterRole', 'cluster-rbac-writer'),
      ),
    );

    const crb = await asAlice(
      'POST',
      `${RBAC}/clusterrolebindings`,
      bindingTo('alice-admin', 'ClusterRole', 'cluster-admin'),
    );
    assertForbidden(
      crb,
      `clusterrolebindings.rbac.authorization.k8s.io "alice-admin" is forbidden: ${GRANT}\n` +
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
      { name: 'alice-admin', group: 'rbac.authorization.k8s.io', kind: 'clusterrolebindings' },
    );

    const aggregated = {
      metadata: { name: 'agg' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-agg': 'true' } }] },
      rules: [],
    };
    const refused = await asAlice('POST', `${RBAC}/clusterroles`, aggregated);
    assertForbidden(
      refused,
      'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
      {
        name: 'agg',
        group: 'rbac.authorization.k8s.io',
        kind: 'clusterroles',
      },
    );
    // The admin (system:masters) may; a ClusterRole within alice's cluster-wide rights is fine.
    assert.equal((await admin('POST', `${RBAC}/clusterroles`, aggregated)).status, 201);
    const within = await asAlice(
      'POST',
      `${RBAC}/clusterroles`,
      role('cr-reader', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get'] }]),
    );
    assert.equal(within.status, 201, within.body);
    // A URL ending in `*` covers the paths under it, not others.
    const logs = await asAlice(
      'POST',
      `${RBAC}/clusterroles`,
      role('log-reader', [{ nonResourceURLs: ['/logs/app'], verbs: ['get'] }]),
    );
    assert.equal(logs.status, 201, logs.body);
    const metrics = await asAlice(
      'POST',
      `${RBAC}/clusterroles`,
      role('metrics-reader', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]),
    );
    assert.equal(
      metrics.json.message,
      `clusterroles.rbac.authorization.k8s.io "metrics-reader" is forbidden: ${GRANT}\n{NonResourceURLs:["/metrics"], Verbs:["get"]}`,
    );
  });
});
