// Which requests reach which webhook: rules (operations, groups, versions, resources with
// wildcards and subresources, scope), namespaceSelector and objectSelector.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { ruleMatches } from '../../../src/kube/admission/matching.ts';
import type { AdmissionAttributes } from '../../../src/kube/registry/context.ts';
import type { ResourceDef } from '../../../src/kube/registry/resource.ts';
import type { RuleWithOperations } from '../../../src/kube/admission/types.ts';
import { internalContext } from '../../../src/kube/registry/context.ts';
import { allow, api, pod, registerHooks, startHookServer, urlConfig, type HookServer, fromClient } from './helpers.ts';

describe('ruleMatches', () => {
  const def = (group: string, resource: string, namespaced: boolean) =>
    ({ group, version: 'v1', resource, namespaced }) as ResourceDef;
  const attrs = (d: ResourceDef, operation: AdmissionAttributes['operation'], subresource?: string) =>
    ({
      def: d,
      operation,
      subresource,
      namespace: d.namespaced ? 'ns' : undefined,
      name: 'n',
      ctx: internalContext('t'),
    }) as AdmissionAttributes;
  const rule = (r: Partial<RuleWithOperations>): RuleWithOperations => ({
    operations: ['*'],
    apiGroups: ['*'],
    apiVersions: ['*'],
    resources: ['*'],
    scope: '*',
    ...r,
  });
  const pods = def('', 'pods', true);
  const nodes = def('', 'nodes', false);
  const namespaces = def('', 'namespaces', false);
  const deployments = def('apps', 'deployments', true);

  test('resources, subresources and wildcards', () => {
    assert.equal(ruleMatches(rule({ resources: ['pods'] }), attrs(pods, 'CREATE')), true);
    assert.equal(ruleMatches(rule({ resources: ['pods'] }), attrs(pods, 'UPDATE', 'status')), false);
    assert.equal(ruleMatches(rule({ resources: ['pods/status'] }), attrs(pods, 'UPDATE', 'status')), true);
    assert.equal(ruleMatches(rule({ resources: ['pods/status'] }), attrs(pods, 'UPDATE')), false);
    assert.equal(ruleMatches(rule({ resources: ['pods/*'] }), attrs(pods, 'UPDATE')), true);
    assert.equal(ruleMatches(rule({ resources: ['*'] }), attrs(pods, 'UPDATE', 'status')), false);
    assert.equal(ruleMatches(rule({ resources: ['*/*'] }), attrs(pods, 'UPDATE', 'status')), true);
    assert.equal(ruleMatches(rule({ resources: ['*/status'] }), attrs(deployments, 'UPDATE', 'status')), true);
    assert.equal(ruleMatches(rule({ resources: ['configmaps'] }), attrs(pods, 'CREATE')), false);
  });

  test('operations, groups and versions', () => {
    assert.equal(ruleMatches(rule({ operations: ['CREATE'] }), attrs(pods, 'UPDATE')), false);
    assert.equal(ruleMatches(rule({ operations: ['DELETE', 'UPDATE'] }), attrs(pods, 'UPDATE')), true);
    assert.equal(ruleMatches(rule({ apiGroups: [''] }), attrs(deployments, 'CREATE')), false);
    assert.equal(ruleMatches(rule({ apiGroups: ['apps'] }), attrs(deployments, 'CREATE')), true);
    assert.equal(ruleMatches(rule({ apiVersions: ['v1beta1'] }), attrs(deployments, 'CREATE')), false);
  });

  test('scope: Namespace objects count as cluster-scoped', () => {
    assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), attrs(pods, 'CREATE')), true);
    assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), attrs(nodes, 'CREATE')), false);
    assert.equal(ruleMatches(rule({ scope: 'Cluster' }), attrs(nodes, 'CREATE')), true);
    assert.equal(ruleMatches(rule({ scope: 'Cluster' }), attrs(pods, 'CREATE')), false);
    assert.equal(ruleMatches(rule({ scope: 'Cluster' }), attrs(namespaces, 'CREATE')), true);
    assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), attrs(namespaces, 'CREATE')), false);
  });
});

describe('selectors and rules against a live server', () => {
  let cp: TestCluster;
  let hooks: HookServer;
  const cleanups: Array<() => Promise<void>> = [];
  before(async () => {
    cp = await startTestCluster();
    hooks = await startHookServer(() => allow());
    for (const [name, labels] of [
      ['team-a', { team: 'a' }],
      ['team-b', { team: 'b' }],
    ] as const) {
      assert.equal((await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name, labels } })).status, 201);
    }
  });
  after(async () => {
    await hooks?.close();
    await cp?.stop();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    hooks.requests.length = 0;
  });
  const called = () =>
    fromClient(hooks).map((r) => `${r.path} ${r.request.operation} ${r.request.kind.kind} ${r.request.name ?? ''}`);

  test('a webhook for pods is not called for configmaps', async () => {
    cleanups.push(
      await registerHooks(cp, 'validating', 'pods-only', [
        { name: 'pods.example.com', clientConfig: urlConfig(hooks, '/pods') },
      ]),
    );
    const cm = await api(cp, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm1' } });
    assert.equal(cm.status, 201);
    assert.deepEqual(called(), []);
    assert.equal((await api(cp, 'POST', '/api/v1/namespaces/default/pods', pod({}, 'rp'))).status, 201);
    assert.deepEqual(called(), ['/pods CREATE Pod rp']);
  });

  test('namespaceSelector picks namespaces by label; Namespace objects offer their own labels', async () => {
    cleanups.push(
      await registerHooks(cp, 'validating', 'team-a', [
        {
          name: 'ns.example.com',
          clientConfig: urlConfig(hooks, '/ns'),
          namespaceSelector: { matchLabels: { team: 'a' } },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'namespaces'] }],
        },
      ]),
    );
    assert.equal((await api(cp, 'POST', '/api/v1/namespaces/team-b/pods', pod({}, 'in-b'))).status, 201);
    assert.equal((await api(cp, 'POST', '/api/v1/namespaces/team-a/pods', pod({}, 'in-a'))).status, 201);
    assert.equal(
      (await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'new-a', labels: { team: 'a' } } })).status,
      201,
    );
    assert.equal(
      (await api(cp, 'POST', '/api/v1/namespaces', { metadata: { name: 'new-b', labels: { team: 'b' } } })).status,
      201,
    );
    assert.deepEqual(called(), ['/ns CREATE Pod in-a', '/ns CREATE Namespace new-a']);
    assert.equal(fromClient(hooks)[0].request.namespace, 'team-a');
  });

  test('objectSelector matches the new or the old labels', async () => {
    cleanups.push(
      await registerHooks(cp, 'validating', 'obj', [
        {
          name: 'obj.example.com',
          clientConfig: urlConfig(hooks, '/obj'),
          objectSelector: { matchExpressions: [{ key: 'watched', operator: 'Exists' }] },
          rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        },
      ]),
    );
    const CMS = '/api/v1/namespaces/default/configmaps';
    assert.equal((await api(cp, 'POST', CMS, { metadata: { name: 'plain' } })).status, 201);
    assert.equal((await api(cp, 'POST', CMS, { metadata: { name: 'w', labels: { watched: '1' } } })).status, 201);
    // Losing the label is still seen (old object matches); gaining it is seen (new object matches).
    const merge = 'application/merge-patch+json';
    assert.equal((await api(cp, 'PATCH', `${CMS}/w`, { metadata: { labels: { watched: null } } }, merge)).status, 200);
    assert.equal((await api(cp, 'PATCH', `${CMS}/w`, { data: { x: '1' } }, merge)).status, 200);
    assert.equal(
      (await api(cp, 'PATCH', `${CMS}/plain`, { metadata: { labels: { watched: 'now' } } }, merge)).status,
      200,
    );
    assert.equal((await api(cp, 'DELETE', `${CMS}/plain`)).status, 200);
    assert.deepEqual(called(), [
      '/obj CREATE ConfigMap w',
      '/obj UPDATE ConfigMap w',
      '/obj UPDATE ConfigMap plain',
      '/obj DELETE ConfigMap plain',
    ]);
  });

  test('webhook configurations themselves are never sent to webhooks', async () => {
    cleanups.push(
      await registerHooks(cp, 'validating', 'everything', [
        {
          name: 'all.example.com',
          clientConfig: urlConfig(hooks, '/all'),
          rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
        },
      ]),
    );
    const other = await registerHooks(cp, 'mutating', 'other', [
      { name: 'other.example.com', clientConfig: urlConfig(hooks, '/x') },
    ]);
    await other();
    assert.deepEqual(called(), []);
  });
});
