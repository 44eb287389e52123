// The local APIServices: one `<version>.<group>` per served group version (`v1.` for core), with
// the priorities of kube-apiserver's apiVersionPriorities (cmd/kube-apiserver/app/aggregator.go,
// pkg/controlplane/apiserver/aggregator.go), label automanaged=onstart and Available=True reason
// Local (kube-aggregator's available-condition controller); CRD group versions get 1000/100 and
// automanaged=true (pkg/controlplane/controller/crdregistration) and go away with the CRD. The
// table is kube-aggregator's (pkg/registry/apiservice/etcd/etcd.go): NAME SERVICE AVAILABLE AGE.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { call } from '../../server/http.ts';

const PATH = '/apis/apiregistration.k8s.io/v1/apiservices';

describe('APIService registration', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 0 });
  });
  after(() => cp.stop());

  const read = async (name: string): Promise<JsonObject | undefined> => {
    const r = await call(cp, 'GET', `${PATH}/${name}`);
    return r.status === 200 ? (JSON.parse(r.body) as JsonObject) : undefined;
  };
  const available = async (name: string): Promise<JsonObject> =>
    eventually<JsonObject | undefined>(
      async () => {
        const o = await read(name);
        const conditions = ((o?.status as JsonObject | undefined)?.conditions ?? []) as JsonObject[];
        return conditions.some((c) => c.type === 'Available' && c.status === 'True') ? o : undefined;
      },
      { what: `${name} Available` },
    ) as Promise<JsonObject>;

  for (const version of ['1.27', '1.33']) {
    test(`kubectl ${version} get apiservices lists the local ones`, async () => {
      await available('v2.autoscaling');
      const r = await kubectl(cp.kubeconfigPath, ['get', 'apiservices'], { version });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split('\n');
      assert.match(lines[0], /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
      const rows = new Map(lines.slice(1).map((l) => [l.split(/\s+/)[0], l.split(/\s+/).slice(1, 3).join(' ')]));
      for (const name of ['v1.', 'v1.apps', 'v1.batch', 'v1.autoscaling', 'v2.autoscaling', 'v1.apiextensions.k8s.io'])
        assert.equal(rows.get(name), 'Local True', `${name} in\n${r.stdout}`);
      // kube-aggregator does not register its own group.
      assert.equal(rows.has('v1.apiregistration.k8s.io'), false);
    });
  }

  test('the local objects carry kube priorities, label and condition', async () => {
    const core = await available('v1.');
    assert.deepEqual(core.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    const apps = await available('v1.apps');
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.deepEqual((apps.metadata as JsonObject).labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    const [condition] = (apps.status as { conditions: JsonObject[] }).conditions;
    assert.equal(typeof condition.lastTransitionTime, 'string');
    assert.deepEqual(
      { ...condition, lastTransitionTime: undefined },
      {
        type: 'Available',
        status: 'True',
        lastTransitionTime: undefined,
        reason: 'Local',
        message: 'Local APIServices are always available',
      },
    );
    const v2 = await available('v2.autoscaling');
    assert.deepEqual(v2.spec, {
      group: 'autoscaling',
      version: 'v2',
      groupPriorityMinimum: 17500,
      versionPriority: 30,
    });
  });

  test('a CRD group version is registered while the CRD serves it', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    const r = await call(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    assert.equal(r.status, 201, r.body);
    const registered = await available('v1.example.com');
    assert.deepEqual(registered.spec, {
      group: 'example.com',
      version: 'v1',
      groupPriorityMinimum: 1000,
      versionPriority: 100,
    });
    assert.deepEqual((registered.metadata as JsonObject).labels, {
      'kube-aggregator.kubernetes.io/automanaged': 'true',
    });

    const d = await call(cp, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    assert.equal(d.status, 200, d.body);
    await eventually(async () => (await read('v1.example.com')) === undefined, {
      what: 'v1.example.com removed',
      timeoutMs: 20_000,
    });
  });

  test('validation as kube-aggregator', async () => {
    const body = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.wrong.example.com' },
      spec: { group: 'metrics.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 0 },
    };
    const r = await call(cp, 'POST', PATH, { body });
    assert.equal(r.status, 422, r.body);
    // ValidateAPIService (staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/validation/validation.go).
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'APIService.apiregistration.k8s.io "v1.wrong.example.com" is invalid: [metadata.name: Invalid value: ' +
        '"v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.metrics.example.com", ' +
        'spec.versionPriority: Invalid value: 0: must be positive and less than 1000]',
    );

    const remote = {
      ...body,
      metadata: { name: 'v1beta1.metrics.example.com' },
      spec: {
        group: 'metrics.example.com',
        version: 'v1beta1',
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { namespace: 'kube-system', name: 'metrics-server' },
      },
    };
    const created = await call(cp, 'POST', PATH, { body: remote });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual((JSON.parse(created.body) as { spec: JsonObject }).spec.service, {
      namespace: 'kube-system',
      name: 'metrics-server',
      port: 443,
    });
    const row = await kubectl(cp.kubeconfigPath, ['get', 'apiservice', 'v1beta1.metrics.example.com'], {
      version: '1.33',
    });
    assert.equal(row.code, 0, row.stderr);
    assert.match(row.stdout, /\nv1beta1\.metrics\.example\.com\s+kube-system\/metrics-server\s+Unknown\s+\d+s\n/);
  });
});
