// The bootstrap policy and the ClusterRole aggregation controller.
// Sources: kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go and
// testdata/cluster-roles.yaml (what a fresh cluster stores), pkg/controller/clusterroleaggregation/
// clusterroleaggregation_controller.go (rules by selector, roles by name, duplicates once, applied
// with force by fieldManager clusterrole-aggregation-controller).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { callAs } from '../as-user.ts';

const CLUSTER_ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
type Rule = Record<string, string[]>;
interface ClusterRole {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: Array<{ manager: string }>;
  };
  rules?: Rule[];
}

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ users: [{ token: 'widget-token', user: { username: 'widget-user', groups: [] } }] });
});
after(async () => {
  await cp?.stop();
});

async function get(name: string): Promise<ClusterRole> {
  const r = await callAs(cp, cp.token, 'GET', `${CLUSTER_ROLES}/${encodeURIComponent(name)}`);
  assert.equal(r.status, 200, r.body);
  return r.json as unknown as ClusterRole;
}

function union(...lists: Array<Rule[] | undefined>): Rule[] {
  const out: Rule[] = [];
  for (const rules of lists) {
    for (const r of rules ?? []) if (!out.some((o) => JSON.stringify(o) === JSON.stringify(r))) out.push(r);
  }
  return out;
}

test('bootstrap roles and bindings carry the rbac-defaults label and the autoupdate annotation', async () => {
  for (const name of [
    'cluster-admin',
    'admin',
    'edit',
    'view',
    'system:aggregate-to-admin',
    'system:aggregate-to-edit',
    'system:aggregate-to-view',
    'system:discovery',
    'system:basic-user',
    'system:public-info-viewer',
    'system:service-account-issuer-discovery',
  ]) {
    const role = await get(name);
    assert.equal(role.metadata.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults', name);
    assert.equal(role.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true', name);
  }
  const binding = await callAs(
    cp,
    cp.token,
    'GET',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin',
  );
  assert.deepEqual(binding.json.subjects, [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' },
  ]);
  assert.deepEqual(binding.json.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: 'cluster-admin',
  });
  const publicInfo = await callAs(
    cp,
    cp.token,
    'GET',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:public-info-viewer',
  );
  assert.deepEqual(
    (publicInfo.json.subjects as Array<{ name: string }>).map((s) => s.name),
    ['system:authenticated', 'system:unauthenticated'],
  );
});

test('view, edit and admin get the aggregated rules: view ⊂ edit ⊂ admin', async () => {
  const [aggView, aggEdit, aggAdmin] = await Promise.all(
    ['system:aggregate-to-view', 'system:aggregate-to-edit', 'system:aggregate-to-admin'].map(get),
  );
  await waitFor(
    async () => (await get('admin')).rules?.length === union(aggAdmin.rules, aggEdit.rules, aggView.rules).length,
    'admin aggregated',
  );
  // Selected roles are taken in name order, duplicates once; the aggregated roles are themselves
  // labelled (view into edit, edit into admin): admin = edit's rules, then system:aggregate-to-admin's.
  assert.deepEqual((await get('view')).rules, aggView.rules);
  assert.deepEqual((await get('edit')).rules, union(aggEdit.rules, aggView.rules));
  assert.deepEqual((await get('admin')).rules, union(aggEdit.rules, aggView.rules, aggAdmin.rules));
  const view = await get('view');
  assert.ok(view.metadata.managedFields?.some((f) => f.manager === 'clusterrole-aggregation-controller'));
  assert.ok(!view.rules?.some((r) => r.resources?.includes('secrets')), 'view never reads Secrets');
});

test('a labelled ClusterRole appearing extends view, edit and admin; deleting it takes the rules away', async () => {
  const widgetRule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] };
  const created = await callAs(cp, cp.token, 'POST', CLUSTER_ROLES, {
    metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    rules: [widgetRule],
  });
  assert.equal(created.status, 201, created.body);
  for (const name of ['view', 'edit', 'admin']) {
    await waitFor(
      async () => (await get(name)).rules?.some((r) => r.resources?.includes('widgets')) ?? false,
      `${name} has widgets`,
    );
  }
  // Effective at once for a user bound to view.
  await callAs(cp, cp.token, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'widget-viewer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'widget-user' }],
  });
  const denied = await callAs(cp, 'widget-token', 'GET', '/apis/example.com/v1/widgets');
  assert.notEqual(denied.status, 403, 'allowed by RBAC (404: no such resource is served)');

  assert.equal((await callAs(cp, cp.token, 'DELETE', `${CLUSTER_ROLES}/widgets-view`)).status, 200);
  for (const name of ['view', 'edit', 'admin']) {
    await waitFor(
      async () => !(await get(name)).rules?.some((r) => r.resources?.includes('widgets')),
      `${name} without widgets`,
    );
  }
});

test('rules written by hand into an aggregated role are overwritten', async () => {
  const before = (await get('view')).rules;
  const patched = await callAs(cp, cp.token, 'PUT', `${CLUSTER_ROLES}/view`, {
    ...(await get('view')),
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
  });
  assert.equal(patched.status, 200, patched.body);
  await waitFor(async () => JSON.stringify((await get('view')).rules) === JSON.stringify(before), 'view restored');
});
