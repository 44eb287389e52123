// The OpenAPI endpoints over HTTP: v3 discovery and per-group/version documents, v2 in gnostic
// protobuf and JSON, content negotiation, caching headers, and CRDs coming and going.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';
import { decodeSwaggerProto } from '../../../../src/kube/server/openapi/v2-proto.ts';
import { get, getJson } from './http.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenAPI documents, probed field by field
type Doc = Record<string, any>;

const PROTO_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PROTO_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

const discovery = (): Promise<{ paths: Record<string, { serverRelativeURL: string }> }> => getJson(cp, '/openapi/v3');

/** Every `$ref` in `v` (OpenAPI v3 or v2 form). */
function refs(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) refs(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else refs(x, out);
    }
  }
  return out;
}

test('v3 discovery lists every served group/version with a content hash', async () => {
  const d = await discovery();
  for (const gv of [
    'api/v1',
    'apis/apps/v1',
    'apis/batch/v1',
    'apis/apiextensions.k8s.io/v1',
    'apis/coordination.k8s.io/v1',
  ]) {
    assert.match(
      d.paths[gv]?.serverRelativeURL ?? '',
      new RegExp(`^/openapi/v3/${gv.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`),
      gv,
    );
  }
});

test('a v3 group/version document: paths, operations, parameters and models', async () => {
  const doc = await getJson<Doc>(cp, '/openapi/v3/api/v1');
  assert.equal(doc.openapi, '3.0.0');
  const cm = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
  for (const [method, action] of [
    ['get', 'get'],
    ['put', 'put'],
    ['patch', 'patch'],
    ['delete', 'delete'],
  ]) {
    assert.deepEqual(
      cm[method]['x-kubernetes-group-version-kind'],
      { group: '', kind: 'ConfigMap', version: 'v1' },
      method,
    );
    assert.equal(cm[method]['x-kubernetes-action'], action);
  }
  const patchParams = cm.patch.parameters.map((p: Doc) => `${p.in}:${p.name}`);
  for (const p of ['query:dryRun', 'query:fieldManager', 'query:fieldValidation', 'query:force'])
    assert.ok(patchParams.includes(p), p);
  assert.deepEqual(
    cm.parameters.map((p: Doc) => p.name),
    ['namespace', 'name'],
  );
  const collection = doc.paths['/api/v1/namespaces/{namespace}/configmaps'];
  assert.equal(collection.post['x-kubernetes-action'], 'post');
  assert.ok(collection.post.parameters.some((p: Doc) => p.name === 'fieldValidation'));
  assert.equal(collection.get['x-kubernetes-action'], 'list');
  assert.equal(doc.paths['/api/v1/configmaps'].get['x-kubernetes-action'], 'list');
  // Cluster-scoped kinds and subresources.
  assert.deepEqual(doc.paths['/api/v1/namespaces/{name}'].get['x-kubernetes-group-version-kind'].kind, 'Namespace');
  assert.ok(doc.paths['/api/v1/nodes/{name}/status'].patch);
  assert.ok(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/status'].put);
  // Strategic merge patch is served but not advertised (kubectl then uses its compiled-in types).
  assert.ok(!('application/strategic-merge-patch+json' in cm.patch.requestBody.content));
  assert.ok('application/apply-patch+yaml' in cm.patch.requestBody.content);

  const schemas = doc.components.schemas;
  assert.deepEqual(schemas['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind'], [
    { group: '', kind: 'ConfigMap', version: 'v1' },
  ]);
  assert.deepEqual(schemas['io.k8s.api.core.v1.ConfigMapList']['x-kubernetes-group-version-kind'], [
    { group: '', kind: 'ConfigMapList', version: 'v1' },
  ]);
  const containers = schemas['io.k8s.api.core.v1.PodSpec'].properties.containers;
  assert.equal(containers.items.$ref, '#/components/schemas/io.k8s.api.core.v1.Container');
  assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
  assert.ok(schemas['io.k8s.api.core.v1.Container'].properties.image);
  for (const kind of ['Pod', 'Secret', 'Service', 'Namespace', 'Node', 'Endpoints', 'Event']) {
    assert.ok(schemas[`io.k8s.api.core.v1.${kind}`]?.['x-kubernetes-group-version-kind'], kind);
  }
  // Self-contained: every reference resolves inside the document.
  for (const r of refs(doc)) assert.ok(schemas[r.replace('#/components/schemas/', '')], r);
});

test('apps/v1 describes Deployment and the autoscaling/v1 Scale of its scale subresource', async () => {
  const doc = await getJson<Doc>(cp, '/openapi/v3/apis/apps/v1');
  const schemas = doc.components.schemas;
  assert.ok(schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.template);
  assert.deepEqual(
    doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].patch['x-kubernetes-group-version-kind'],
    {
      group: 'autoscaling',
      kind: 'Scale',
      version: 'v1',
    },
  );
  assert.ok(schemas['io.k8s.api.autoscaling.v1.Scale']);
  for (const r of refs(doc)) assert.ok(schemas[r.replace('#/components/schemas/', '')], r);
});

test('hashed v3 URLs are immutable; ETags answer 304; stale hashes redirect', async () => {
  const url = (await discovery()).paths['apis/apps/v1'].serverRelativeURL;
  const hash = url.split('hash=')[1];
  const r = await get(cp, url);
  assert.equal(r.code, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['cache-control'], 'public, immutable');
  assert.equal(r.headers.etag, `"${hash}"`);
  assert.equal((await get(cp, url, { 'If-None-Match': `"${hash}"` })).code, 304);
  const stale = await get(cp, '/openapi/v3/apis/apps/v1?hash=ABC');
  assert.equal(stale.code, 301);
  assert.equal(stale.headers.location, url);
  const plain = await get(cp, '/openapi/v3/apis/apps/v1');
  assert.equal(plain.headers['cache-control'], 'no-cache, private');
});

test('unknown group/versions are 404; unacceptable media types are 406; writes are 405', async () => {
  assert.equal((await get(cp, '/openapi/v3/apis/nope.example.com/v1')).code, 404);
  assert.equal(
    (await get(cp, '/openapi/v3/api/v1', { Accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' }))
      .code,
    406,
  );
  assert.equal((await get(cp, '/openapi/v2', { Accept: 'application/yaml' })).code, 406);
  const post = await get(cp, '/openapi/v2', {}, 'POST');
  assert.equal(post.code, 405);
  assert.equal(JSON.parse(post.body.toString()).kind, 'Status');
});

test('v2 protobuf: the gnostic encoding kubectl asks for, with GVK extensions and PATCH parameters', async () => {
  const r = await get(cp, '/openapi/v2', { Accept: PROTO_ACCEPT });
  assert.equal(r.code, 200);
  assert.equal(r.headers['content-type'], PROTO_TYPE);
  assert.match(String(r.headers.etag), /^"[0-9A-F]{128}"$/);
  assert.equal(
    (await get(cp, '/openapi/v2', { Accept: PROTO_ACCEPT, 'If-None-Match': String(r.headers.etag) })).code,
    304,
  );

  const doc = decodeSwaggerProto(r.body) as Doc;
  assert.equal(doc.swagger, '2.0');
  const defs = new Map<string, Doc>(doc.definitions.additional_properties.map((d: Doc) => [d.name, d.value]));
  const cm = defs.get('io.k8s.api.core.v1.ConfigMap')!;
  const ext = cm.vendor_extension.find((e: Doc) => e.name === 'x-kubernetes-group-version-kind');
  assert.deepEqual(parseYaml(ext.value.yaml), [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  const meta = cm.properties.additional_properties.find((p: Doc) => p.name === 'metadata').value;
  assert.equal(meta._ref, `#/definitions/${OBJECT_META}`);
  assert.ok(defs.has(OBJECT_META));

  const item = doc.paths.path.find((p: Doc) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}').value;
  const gvk = item.patch.vendor_extension.find((e: Doc) => e.name === 'x-kubernetes-group-version-kind');
  assert.deepEqual(parseYaml(gvk.value.yaml), { group: '', kind: 'ConfigMap', version: 'v1' });
  const query = item.patch.parameters
    .map((p: Doc) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name)
    .filter(Boolean);
  for (const name of ['dryRun', 'fieldManager', 'fieldValidation', 'force']) assert.ok(query.includes(name), name);
  assert.ok(!item.patch.consumes.includes('application/strategic-merge-patch+json'));

  const legacy = await get(cp, '/swagger-2.0.0.pb-v1');
  assert.equal(legacy.code, 200);
  assert.deepEqual(legacy.body, r.body);
});

test('v2 JSON follows the rules of kubectl’s v2 parser', async () => {
  const r = await get(cp, '/openapi/v2', { Accept: 'application/json' });
  assert.equal(r.headers['content-type'], 'application/json');
  const doc = JSON.parse(r.body.toString()) as Doc;
  const visit = (s: Doc, where: string): void => {
    if (s.$ref) {
      assert.ok(doc.definitions[s.$ref.replace('#/definitions/', '')], `${where}: ${s.$ref}`);
      assert.deepEqual(
        Object.keys(s).filter((k) => k !== '$ref' && k !== 'description'),
        [],
        `${where}: a reference carries only a description`,
      );
      return;
    }
    if (s.type === 'array') assert.ok(s.items, `${where}: arrays have items`);
    if (s['x-kubernetes-preserve-unknown-fields'])
      assert.equal(s.properties, undefined, `${where}: open objects are maps`);
    for (const [k, p] of Object.entries<Doc>(s.properties ?? {})) visit(p, `${where}.${k}`);
    if (s.items) visit(s.items, `${where}[]`);
    if (s.additionalProperties && typeof s.additionalProperties === 'object')
      visit(s.additionalProperties, `${where}{}`);
  };
  for (const [name, s] of Object.entries<Doc>(doc.definitions)) visit(s, name);
  for (const r of refs(doc.paths)) assert.ok(doc.definitions[r.replace('#/definitions/', '')], r);
});

test('CRDs appear in and leave the documents, with their schema', async () => {
  const { store, catalog } = cp.internals;
  const crdDef = catalog.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const before = await get(cp, '/openapi/v2', { Accept: PROTO_ACCEPT });
  await store.create(
    crdDef,
    undefined,
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.docs.example.com' },
      spec: {
        group: 'docs.example.com',
        scope: 'Cluster',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                description: 'A gizmo.',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      speed: { type: 'integer', description: 'How fast.' },
                      extra: {
                        type: 'object',
                        'x-kubernetes-preserve-unknown-fields': true,
                        properties: { a: { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    },
    internalContext('test'),
  );
  const url = await eventually(async () => (await discovery()).paths['apis/docs.example.com/v1']?.serverRelativeURL, {
    what: 'v3 discovery of the CRD',
  });
  const doc = await getJson<Doc>(cp, url);
  const model = doc.components.schemas['com.example.docs.v1.Gizmo'];
  assert.deepEqual(model['x-kubernetes-group-version-kind'], [
    { group: 'docs.example.com', kind: 'Gizmo', version: 'v1' },
  ]);
  assert.equal(model.description, 'A gizmo.');
  assert.equal(model.properties.spec.properties.speed.description, 'How fast.');
  assert.equal(model.properties.metadata.allOf[0].$ref, `#/components/schemas/${OBJECT_META}`);
  assert.ok(
    doc.paths['/apis/docs.example.com/v1/gizmos/{name}'].patch.parameters.some(
      (p: Doc) => p.name === 'fieldValidation',
    ),
  );
  for (const r of refs(doc)) assert.ok(doc.components.schemas[r.replace('#/components/schemas/', '')], r);

  const v2 = JSON.parse((await get(cp, '/openapi/v2', { Accept: 'application/json' })).body.toString()) as Doc;
  const gizmo = v2.definitions['com.example.docs.v1.Gizmo'];
  assert.equal(gizmo.properties.spec.properties.speed.type, 'integer');
  assert.equal(gizmo.properties.spec.properties.extra.properties, undefined);
  const after = await get(cp, '/openapi/v2', { Accept: PROTO_ACCEPT });
  assert.notEqual(after.headers.etag, before.headers.etag);

  await store.delete(
    crdDef,
    undefined,
    'gizmos.docs.example.com',
    { propagationPolicy: 'Background' },
    internalContext('test'),
  );
  await eventually(async () => !(await discovery()).paths['apis/docs.example.com/v1'], {
    what: 'the CRD to leave v3 discovery',
  });
  assert.equal((await get(cp, url)).code, 404);
});
