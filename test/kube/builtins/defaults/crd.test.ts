// A new CustomResourceDefinition as kube-apiserver answers its create: spec defaults from
// apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go (singular = lower-cased kind,
// listKind = <Kind>List, conversion strategy None) and the status its strategy's PrepareForCreate
// sets (pkg/registry/customresourcedefinition/strategy.go): no conditions, empty accepted names,
// the storage version in storedVersions. The CRD controller then accepts the names.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { defaultCrd } from '../../../../src/kube/builtins/defaults/crd.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, probed field by field
type Obj = Record<string, any>;

const crd = (group: string, plural: string, kind: string): Obj => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, kind },
    versions: [
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
});

const NEW_STATUS = { conditions: [], acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] };

function assertCreated(o: Obj, plural: string, kind: string): void {
  assert.deepEqual(o.spec.names, { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` });
  assert.deepEqual(o.spec.conversion, { strategy: 'None' });
  assert.deepEqual(o.status, NEW_STATUS);
}

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
});
after(async () => {
  await cp?.stop();
});

test('defaults: names keep explicit values and Go order; status only on create', () => {
  const o: Obj = {
    spec: {
      names: { kind: 'Gizmo', listKind: 'Gizmos', plural: 'gizmos', shortNames: ['gz'], singular: 'giz' },
      conversion: { strategy: 'Webhook' },
    },
  };
  defaultCrd(o, 'update');
  assert.deepEqual(Object.keys(o.spec.names), ['plural', 'singular', 'shortNames', 'kind', 'listKind']);
  assert.equal(o.spec.names.singular, 'giz');
  assert.equal(o.spec.names.listKind, 'Gizmos');
  assert.deepEqual(o.spec.conversion, { strategy: 'Webhook' });
  assert.equal(o.status, undefined);
});

test('raw POST answers the defaulted spec and the initial status', async () => {
  const r = await postRaw(
    cp,
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    crd('raw.example.com', 'things', 'Thing'),
  );
  assert.equal(r.code, 201, r.body);
  const created = JSON.parse(r.body) as Obj;
  assertCreated(created, 'things', 'Thing');
  // CustomResourceDefinitionNames and CustomResourceDefinitionStatus in their Go field order
  // (kubectl re-sorts what it prints, so only the raw body shows it).
  assert.deepEqual(Object.keys(created.spec.names), ['plural', 'singular', 'kind', 'listKind']);
  assert.deepEqual(Object.keys(created.status), ['conditions', 'acceptedNames', 'storedVersions']);
  assert.ok(
    r.body.includes('"status":{"conditions":[],"acceptedNames":{"plural":"","kind":""},"storedVersions":["v1"]}'),
  );
  assert.deepEqual(Object.keys(created.spec), ['group', 'names', 'scope', 'versions', 'conversion']);

  // The controller's conditions read back in CustomResourceDefinitionCondition's Go order.
  const established = await eventually(async () => {
    const g = await requestRaw(
      cp,
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.raw.example.com',
    );
    const o = JSON.parse(g.body) as Obj;
    return (o.status?.conditions ?? []).some((c: Obj) => c.type === 'Established') ? o : undefined;
  });
  assert.ok(established);
  for (const c of established.status.conditions as Obj[]) {
    assert.deepEqual(Object.keys(c), ['type', 'status', 'lastTransitionTime', 'reason', 'message']);
  }
  assert.deepEqual(Object.keys(established.status), ['conditions', 'acceptedNames', 'storedVersions']);
});

test('kubectl create -o json shows the same; the controller then accepts the names', async () => {
  const input = JSON.stringify(crd('kubectl.example.com', 'gadgets', 'Gadget'));
  const r = await kubectl(cp.kubeconfigPath, ['create', '-o', 'json', '-f', '-'], { input, version: '1.33' });
  assert.equal(r.code, 0, r.stderr);
  assertCreated(JSON.parse(r.stdout) as Obj, 'gadgets', 'Gadget');

  const accepted = await eventually(
    async () => {
      const g = await kubectl(cp.kubeconfigPath, ['get', 'crd', 'gadgets.kubectl.example.com', '-o', 'json']);
      const o = JSON.parse(g.stdout) as Obj;
      const established = (o.status?.conditions ?? []).some(
        (c: Obj) => c.type === 'Established' && c.status === 'True',
      );
      return established ? o : undefined;
    },
    { what: 'CRD Established' },
  );
  assert.ok(accepted);
  assert.deepEqual(accepted.status.acceptedNames, {
    plural: 'gadgets',
    singular: 'gadget',
    kind: 'Gadget',
    listKind: 'GadgetList',
  });
  assert.deepEqual(accepted.status.storedVersions, ['v1']);
});

function postRaw(cp: TestCluster, path: string, body: unknown): Promise<{ code: number; body: string }> {
  return requestRaw(cp, 'POST', path, JSON.stringify(body));
}

function requestRaw(
  cp: TestCluster,
  method: string,
  path: string,
  body?: string,
): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.url}${path}`,
      {
        method,
        ca: cp.caPem,
        headers: {
          Authorization: `Bearer ${cp.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
