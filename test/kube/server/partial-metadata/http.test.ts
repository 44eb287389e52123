// Metadata-only answers over raw HTTPS, as controller-runtime's metadata informers and client-go's
// metadata client ask for them. Shapes from kube-apiserver's asPartialObjectMetadata and
// asPartialObjectMetadataList (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go)
// and the meta/v1 types (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go); negotiation
// from handlers/negotiation/negotiate.go and RequestScope.AllowsMediaTypeTransform (handlers/rest.go).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { rootCaPublished } from '../../../helpers/https.ts';
import { call, openWatch, TABLE_ACCEPT } from '../http.ts';

interface Partial {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
}
interface PartialList {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: Partial[] | null;
}

const accept = (as: string, v = 'v1') => `application/json;as=${as};v=${v};g=meta.k8s.io,application/json`;
/** What client-go's metadata client sends (k8s.io/client-go/metadata/metadata.go): protobuf first. */
const clientGo = (as: string) =>
  `application/vnd.kubernetes.protobuf;as=${as};g=meta.k8s.io;v=v1,application/json;as=${as};g=meta.k8s.io;v=v1,application/json`;
/** metav1.ObjectMeta's fields in Go declaration order. */
const OBJECT_META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

const CMS = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
let cp: TestCluster;

function assertPartialOf(item: Partial, full: { metadata: Record<string, unknown> }, version = 'v1'): void {
  assert.deepEqual(Object.keys(item), ['kind', 'apiVersion', 'metadata']);
  assert.equal(item.kind, 'PartialObjectMetadata');
  assert.equal(item.apiVersion, `meta.k8s.io/${version}`);
  assert.deepEqual(item.metadata, full.metadata);
  const keys = Object.keys(item.metadata);
  assert.deepEqual(
    keys,
    OBJECT_META_ORDER.filter((k) => keys.includes(k)),
    'ObjectMeta field order',
  );
}

async function getJson<T>(path: string, acceptHeader?: string): Promise<T> {
  const r = await call(cp, 'GET', path, { accept: acceptHeader });
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as T;
}

before(async () => {
  cp = await startTestCluster({ scheduler: false, nodes: 2 });
  // default's ConfigMaps: the root CA publisher's kube-root-ca.crt and a, b, c.
  await rootCaPublished(cp, 'default');
  for (const name of ['a', 'b', 'c']) {
    const r = await call(cp, 'POST', CMS, { body: { metadata: { name, labels: { app: 'x' } }, data: { k: 'v' } } });
    assert.equal(r.status, 201, r.body);
  }
  const crd = await call(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
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
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    },
  });
  assert.equal(crd.status, 201, crd.body);
  await eventually(async () => (await call(cp, 'GET', WIDGETS)).status === 200, { what: 'widgets served' });
  for (const name of ['w1', 'w2']) {
    const r = await call(cp, 'POST', WIDGETS, {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } },
    });
    assert.equal(r.status, 201, r.body);
  }
});
after(() => cp.stop());

describe('PartialObjectMetadataList', () => {
  test('GET /api/v1/nodes with the metadata Accept header', async () => {
    const plain = await getJson<{ items: Array<{ metadata: Record<string, unknown> }> }>('/api/v1/nodes');
    const r = await call(cp, 'GET', '/api/v1/nodes', {
      accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    assert.equal(r.status, 200, r.body);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const list = JSON.parse(r.body) as PartialList;
    assert.deepEqual(Object.keys(list), ['kind', 'apiVersion', 'metadata', 'items']);
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.equal(list.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(Object.keys(list.metadata), ['resourceVersion']);
    assert.equal(list.items?.length, 2);
    list.items?.forEach((item, i) => assertPartialOf(item, plain.items[i]));
    assert.equal((list.items?.[0] as unknown as { status?: unknown }).status, undefined);
  });

  test('v1 and v1beta1 for a built-in and a custom resource; items carry their kind', async () => {
    for (const [path, count] of [
      [CMS, 4],
      [WIDGETS, 2],
    ] as const) {
      const plain = await getJson<{ items: Array<{ metadata: Record<string, unknown> }> }>(path);
      for (const version of ['v1', 'v1beta1']) {
        const list = await getJson<PartialList>(path, accept('PartialObjectMetadataList', version));
        assert.equal(list.kind, 'PartialObjectMetadataList');
        assert.equal(list.apiVersion, `meta.k8s.io/${version}`);
        assert.equal(list.items?.length, count);
        list.items?.forEach((item, i) => assertPartialOf(item, plain.items[i], version));
      }
    }
  });

  test('paging: continue, remainingItemCount and one resourceVersion across pages', async () => {
    const first = await getJson<PartialList>(`${CMS}?limit=1`, accept('PartialObjectMetadataList'));
    assert.deepEqual(Object.keys(first.metadata), ['resourceVersion', 'continue', 'remainingItemCount']);
    assert.equal(first.metadata.remainingItemCount, 3);
    assert.deepEqual(
      first.items?.map((i) => i.metadata.name),
      ['a'],
    );
    const next = await getJson<PartialList>(
      `${CMS}?limit=5&continue=${encodeURIComponent(first.metadata.continue ?? '')}`,
      accept('PartialObjectMetadataList'),
    );
    assert.deepEqual(
      next.items?.map((i) => i.metadata.name),
      ['b', 'c', 'kube-root-ca.crt'],
    );
    assert.equal(next.metadata.continue, undefined);
    assert.equal(next.metadata.resourceVersion, first.metadata.resourceVersion);
  });

  test('an empty list has items null (the Go list starts from a nil slice, `items` has no omitempty)', async () => {
    const r = await call(cp, 'GET', '/api/v1/namespaces/default/secrets?labelSelector=none%3Dsuch', {
      accept: accept('PartialObjectMetadataList'),
    });
    assert.equal(r.status, 200);
    assert.match(
      r.body,
      /^\{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io\/v1","metadata":\{"resourceVersion":"\d+"\},"items":null\}$/,
    );
  });
});

describe('PartialObjectMetadata', () => {
  test('GET of a built-in and of a custom resource, v1 and v1beta1', async () => {
    for (const path of [
      `${CMS}/a`,
      `${WIDGETS}/w1`,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
    ]) {
      const full = await getJson<{ metadata: Record<string, unknown> }>(path);
      for (const version of ['v1', 'v1beta1']) {
        assertPartialOf(await getJson<Partial>(path, accept('PartialObjectMetadata', version)), full, version);
      }
    }
  });

  test("client-go's metadata client header: the protobuf clause is passed over, JSON answers", async () => {
    const r = await call(cp, 'GET', `${CMS}/a`, { accept: clientGo('PartialObjectMetadata') });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal((JSON.parse(r.body) as Partial).kind, 'PartialObjectMetadata');
    const list = await getJson<PartialList>(WIDGETS, clientGo('PartialObjectMetadataList'));
    assert.equal(list.kind, 'PartialObjectMetadataList');
  });

  test('a patch answered as metadata (client-go metadata Patch)', async () => {
    const r = await call(cp, 'PATCH', `${WIDGETS}/w2`, {
      body: { metadata: { labels: { patched: 'yes' } } },
      contentType: 'application/merge-patch+json',
      accept: clientGo('PartialObjectMetadata'),
    });
    assert.equal(r.status, 200, r.body);
    const p = JSON.parse(r.body) as Partial;
    assert.equal(p.kind, 'PartialObjectMetadata');
    assert.deepEqual(p.metadata.labels, { patched: 'yes' });
    assert.equal((p as unknown as { spec?: unknown }).spec, undefined);
  });
});

describe('negotiation', () => {
  test('the first clause the server can serve wins', async () => {
    const tableFirst = `application/json;as=Table;v=v1;g=meta.k8s.io,${accept('PartialObjectMetadataList')}`;
    assert.equal((await getJson<{ kind: string }>(CMS, tableFirst)).kind, 'Table');
    const metaFirst = `${accept('PartialObjectMetadataList')},${TABLE_ACCEPT}`;
    assert.equal((await getJson<{ kind: string }>(CMS, metaFirst)).kind, 'PartialObjectMetadataList');
    const unknownFirst = `application/json;as=Table;v=v2;g=meta.k8s.io,${accept('PartialObjectMetadataList', 'v1beta1')}`;
    const list = await getJson<PartialList>(CMS, unknownFirst);
    assert.equal(list.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('the single-object form for a collection, and the list form for one object, are 406', async () => {
    // A transform that fails after negotiation does not fall back to the next clause.
    const list = await call(cp, 'GET', CMS, { accept: accept('PartialObjectMetadata') });
    assert.equal(list.status, 406);
    assert.deepEqual(JSON.parse(list.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
      reason: 'NotAcceptable',
      code: 406,
    });
    const one = await call(cp, 'GET', `${WIDGETS}/w1`, { accept: accept('PartialObjectMetadataList') });
    assert.equal(one.status, 406);
    assert.equal(
      (JSON.parse(one.body) as { message: string }).message,
      'you requested PartialObjectMetadataList, but the requested object is not a list (*unstructured.Unstructured)',
    );
  });

  test('406 when no clause can be served: protobuf-only metadata, unknown kinds and versions', async () => {
    for (const header of [
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2',
      'application/json;as=ObjectMetadataList;g=meta.k8s.io;v=v1',
      'application/json;as=PartialObjectMetadataList;g=example.com;v=v1',
    ]) {
      const r = await call(cp, 'GET', CMS, { accept: header });
      assert.equal(r.status, 406, header);
      const status = JSON.parse(r.body) as { reason: string; message: string };
      assert.equal(status.reason, 'NotAcceptable');
      assert.equal(
        status.message,
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      );
    }
  });
});

describe('watches', () => {
  test('events carry PartialObjectMetadata, initial events and bookmarks included (built-in and custom)', async () => {
    for (const [path, version] of [
      [CMS, 'v1'],
      [WIDGETS, 'v1beta1'],
    ] as const) {
      const w = openWatch<{ type: string; object: Partial }>(
        cp,
        `${path}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        clientGo('PartialObjectMetadata').replaceAll('v=v1', `v=${version}`),
      );
      try {
        await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'), { what: 'initial-events-end bookmark' });
        const added = w.events.filter((e) => e.type === 'ADDED');
        assert.ok(added.length >= 2);
        for (const e of added) {
          assert.equal(e.object.kind, 'PartialObjectMetadata');
          assert.equal(e.object.apiVersion, `meta.k8s.io/${version}`);
          assert.deepEqual(Object.keys(e.object), ['kind', 'apiVersion', 'metadata']);
        }
        const bookmark = w.events.find((e) => e.type === 'BOOKMARK');
        assert.equal(bookmark?.object.kind, 'PartialObjectMetadata');
        assert.equal(bookmark?.object.apiVersion, `meta.k8s.io/${version}`);
        // A bookmark's object has no creationTimestamp; typed ObjectMeta writes the zero Time as null.
        assert.deepEqual(Object.keys(bookmark?.object.metadata ?? {}), [
          'resourceVersion',
          'creationTimestamp',
          'annotations',
        ]);
        assert.equal(bookmark?.object.metadata.creationTimestamp, null);
        assert.deepEqual(bookmark?.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });

        const name = path === CMS ? 'a' : 'w1';
        const patched = await call(cp, 'PATCH', `${path}/${name}`, {
          body: { metadata: { annotations: { touched: String(Date.now()) } } },
          contentType: 'application/merge-patch+json',
        });
        assert.equal(patched.status, 200, patched.body);
        const modified = await eventually(() => w.events.find((e) => e.type === 'MODIFIED'), { what: 'MODIFIED' });
        assert.ok(modified);
        assertPartialOf(modified.object, JSON.parse(patched.body) as { metadata: Record<string, unknown> }, version);
      } finally {
        w.stop();
      }
    }
  });

  test('a watch asked for the list form gets the objects as they are (kube cannot convert one object to a list)', async () => {
    const list = await getJson<PartialList>(CMS, accept('PartialObjectMetadataList'));
    const w = openWatch<{ type: string; object: { kind: string } }>(
      cp,
      `${CMS}?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      accept('PartialObjectMetadataList'),
    );
    try {
      await eventually(
        async () => (await call(cp, 'POST', CMS, { body: { metadata: { name: 'late' } } })).status === 201,
      );
      const added = await eventually(() => w.events.find((e) => e.type === 'ADDED'), { what: 'ADDED' });
      assert.ok(added);
      assert.equal(added.object.kind, 'ConfigMap');
    } finally {
      w.stop();
      await call(cp, 'DELETE', `${CMS}/late`);
    }
  });
});
