// Built-in kinds every cluster serves and clients look up by name: discovery lists
// replicationcontrollers (rc), podtemplates, apiservices and horizontalpodautoscalers (hpa, v2
// preferred over v1) for `kubectl api-resources`, and podtemplates print kube's columns
// (podTemplateColumnDefinitions in pkg/printers/internalversion/printers.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { call } from '../server/http.ts';

const VERSIONS = ['1.27', '1.33'];

describe('built-in kinds', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 0 });
  });
  after(() => cp.stop());

  for (const version of VERSIONS) {
    test(`kubectl ${version} api-resources lists them`, async () => {
      const r = await kubectl(cp.kubeconfigPath, ['api-resources', '--no-headers'], { version });
      assert.equal(r.code, 0, r.stderr);
      const rows = r.stdout.split('\n').map((l) => l.trim().split(/\s+/));
      const find = (name: string) => rows.find((cells) => cells[0] === name);
      assert.deepEqual(find('replicationcontrollers'), [
        'replicationcontrollers',
        'rc',
        'v1',
        'true',
        'ReplicationController',
      ]);
      assert.deepEqual(find('podtemplates'), ['podtemplates', 'v1', 'true', 'PodTemplate']);
      assert.deepEqual(find('apiservices'), ['apiservices', 'apiregistration.k8s.io/v1', 'false', 'APIService']);
      assert.deepEqual(find('horizontalpodautoscalers'), [
        'horizontalpodautoscalers',
        'hpa',
        'autoscaling/v2',
        'true',
        'HorizontalPodAutoscaler',
      ]);
    });
  }

  test('discovery: autoscaling prefers v2 and also serves v1; subresources', async () => {
    const group = JSON.parse((await call(cp, 'GET', '/apis/autoscaling')).body) as JsonObject;
    assert.deepEqual(group.versions, [
      { groupVersion: 'autoscaling/v2', version: 'v2' },
      { groupVersion: 'autoscaling/v1', version: 'v1' },
    ]);
    assert.deepEqual(group.preferredVersion, { groupVersion: 'autoscaling/v2', version: 'v2' });
    const core = JSON.parse((await call(cp, 'GET', '/api/v1')).body) as { resources: JsonObject[] };
    const names = core.resources.map((r) => r.name);
    for (const n of [
      'replicationcontrollers',
      'replicationcontrollers/status',
      'replicationcontrollers/scale',
      'podtemplates',
    ])
      assert.ok(names.includes(n), n);
    const scale = core.resources.find((r) => r.name === 'replicationcontrollers/scale')!;
    assert.deepEqual([scale.group, scale.version, scale.kind], ['autoscaling', 'v1', 'Scale']);
    const rc = core.resources.find((r) => r.name === 'replicationcontrollers')!;
    assert.deepEqual(rc.categories, ['all']);
  });

  for (const version of VERSIONS) {
    test(`kubectl ${version} get podtemplates`, async () => {
      const name = `pt-${version.replace('.', '')}`;
      const pt = {
        apiVersion: 'v1',
        kind: 'PodTemplate',
        metadata: { name },
        template: {
          metadata: { labels: { app: 'web', tier: 'front' } },
          spec: {
            containers: [
              { name: 'a', image: 'nginx' },
              { name: 'b', image: 'busybox' },
            ],
          },
        },
      };
      const c = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { version, input: JSON.stringify(pt) });
      assert.equal(c.code, 0, c.stderr);
      assert.equal(c.stdout.trim(), `podtemplate/${name} created`);
      const r = await kubectl(cp.kubeconfigPath, ['get', 'podtemplates', name], { version });
      assert.equal(r.code, 0, r.stderr);
      const [header, row] = r.stdout.trim().split('\n');
      assert.match(header, /^NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS$/);
      assert.match(row, new RegExp(`^${name}\\s+a,b\\s+nginx,busybox\\s+app=web,tier=front$`));
    });
  }

  test('podtemplates are validated and defaulted as pod templates', async () => {
    const bad = {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 'bad' },
      template: { spec: { containers: [{ name: 'a' }] } },
    };
    const r = await call(cp, 'POST', '/api/v1/namespaces/default/podtemplates', { body: bad });
    assert.equal(r.status, 422, r.body);
    assert.match(
      (JSON.parse(r.body) as { message: string }).message,
      /template\.spec\.containers\[0\]\.image: Required value/,
    );
    const good = {
      ...bad,
      metadata: { name: 'good' },
      template: { spec: { containers: [{ name: 'a', image: 'nginx' }] } },
    };
    const created = await call(cp, 'POST', '/api/v1/namespaces/default/podtemplates', { body: good });
    assert.equal(created.status, 201, created.body);
    const spec = (JSON.parse(created.body) as { template: { spec: JsonObject } }).template.spec;
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
  });
});
