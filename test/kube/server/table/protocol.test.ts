// The Table wire format against a running server: negotiation, includeObject, list metadata,
// single objects and watch streams.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { rootCaPublished } from '../../../helpers/https.ts';
import { call, TABLE_ACCEPT } from '../http.ts';

interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: Array<{
    name: string;
    type: string;
    format: string;
    description: string;
    priority: number;
  }> | null;
  rows: Array<{
    cells: unknown[];
    object: { kind?: string; apiVersion?: string; metadata?: { name?: string; namespace?: string } } | null;
  }>;
}

let cp: TestCluster;
const CMS = '/api/v1/namespaces/default/configmaps';

before(async () => {
  cp = await startTestCluster({ scheduler: false });
  // default's ConfigMaps: a, b, c and the root CA publisher's kube-root-ca.crt (one key, ca.crt).
  await rootCaPublished(cp, 'default');
  for (const name of ['a', 'b', 'c']) {
    const r = await call(cp, 'POST', CMS, { body: { metadata: { name }, data: { k: 'v' } } });
    assert.equal(r.status, 201, r.body);
  }
});
after(() => cp.stop());

describe('Table negotiation', () => {
  test('kubectl get Accept header gets a meta.k8s.io/v1 Table with metadata rows', async () => {
    const r = await call(cp, 'GET', `${CMS}?limit=500`, { accept: TABLE_ACCEPT });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const t = JSON.parse(r.body) as Table;
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.match(t.metadata.resourceVersion ?? '', /^\d+$/);
    assert.deepEqual(
      t.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Data', 'string', '', 0],
        ['Age', 'string', '', 0],
      ],
    );
    for (const c of t.columnDefinitions ?? []) assert.ok(c.description.length > 0, c.name);
    assert.deepEqual(
      t.rows.map((row) => row.cells.slice(0, 2)),
      [
        ['a', 1],
        ['b', 1],
        ['c', 1],
        ['kube-root-ca.crt', 1],
      ],
    );
    assert.match(String(t.rows[0].cells[2]), /^\d+s$/);
    const obj = t.rows[0].object;
    assert.equal(obj?.kind, 'PartialObjectMetadata');
    assert.equal(obj?.apiVersion, 'meta.k8s.io/v1');
    assert.equal(obj?.metadata?.namespace, 'default');
    assert.equal((obj as { data?: unknown }).data, undefined);
  });

  test('v1beta1 when only v1beta1 is asked for', async () => {
    const r = await call(cp, 'GET', CMS, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
    const t = JSON.parse(r.body) as Table;
    assert.equal(t.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(t.rows[0].object?.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('includeObject=None and Object', async () => {
    const none = JSON.parse(
      (await call(cp, 'GET', `${CMS}?includeObject=None`, { accept: TABLE_ACCEPT })).body,
    ) as Table;
    assert.equal(none.rows[0].object, null);
    const full = JSON.parse(
      (await call(cp, 'GET', `${CMS}?includeObject=Object`, { accept: TABLE_ACCEPT })).body,
    ) as Table;
    assert.equal(full.rows[0].object?.kind, 'ConfigMap');
    assert.deepEqual((full.rows[0].object as { data?: unknown }).data, { k: 'v' });
    const bad = await call(cp, 'GET', `${CMS}?includeObject=Everything`, { accept: TABLE_ACCEPT });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /includeObject/);
  });

  test('paged lists carry continue and remainingItemCount', async () => {
    const t = JSON.parse((await call(cp, 'GET', `${CMS}?limit=1`, { accept: TABLE_ACCEPT })).body) as Table;
    assert.equal(t.rows.length, 1);
    assert.ok(t.metadata.continue);
    assert.equal(t.metadata.remainingItemCount, 3);
    const next = JSON.parse(
      (
        await call(cp, 'GET', `${CMS}?limit=5&continue=${encodeURIComponent(t.metadata.continue ?? '')}`, {
          accept: TABLE_ACCEPT,
        })
      ).body,
    ) as Table;
    assert.deepEqual(
      next.rows.map((r) => r.cells[0]),
      ['b', 'c', 'kube-root-ca.crt'],
    );
  });

  test('a single object is a one-row Table at its resourceVersion', async () => {
    const plain = JSON.parse((await call(cp, 'GET', `${CMS}/a`)).body) as { metadata: { resourceVersion: string } };
    const t = JSON.parse((await call(cp, 'GET', `${CMS}/a`, { accept: TABLE_ACCEPT })).body) as Table;
    assert.equal(t.kind, 'Table');
    assert.equal(t.rows.length, 1);
    assert.equal(t.metadata.resourceVersion, plain.metadata.resourceVersion);
  });

  test('plain JSON without as=Table; 406 when only unknown conversions are offered', async () => {
    const plain = JSON.parse((await call(cp, 'GET', CMS, { accept: 'application/json' })).body) as { kind: string };
    assert.equal(plain.kind, 'ConfigMapList');
    const r = await call(cp, 'GET', CMS, { accept: 'application/json;as=Table;v=v2;g=meta.k8s.io' });
    assert.equal(r.status, 406);
    assert.equal((JSON.parse(r.body) as { reason: string }).reason, 'NotAcceptable');
    const fallback = await call(cp, 'GET', CMS, {
      accept: 'application/json;as=Table;v=v2;g=meta.k8s.io, application/json',
    });
    assert.equal((JSON.parse(fallback.body) as { kind: string }).kind, 'ConfigMapList');
  });

  test('cluster-scoped and custom defaults', async () => {
    const t = JSON.parse(
      (await call(cp, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { accept: TABLE_ACCEPT })).body,
    ) as Table;
    assert.deepEqual(
      t.columnDefinitions?.map((c) => [c.name, c.type]),
      [
        ['Name', 'string'],
        ['Created At', 'date'],
      ],
    );
  });
});

describe('Table watches', () => {
  test('one-row Tables per event, column definitions only in the first', async () => {
    const list = JSON.parse((await call(cp, 'GET', CMS, { accept: TABLE_ACCEPT })).body) as Table;
    const events: Array<{ type: string; object: Table }> = [];
    const req = request(
      new URL(`${CMS}?watch=true&resourceVersion=${list.metadata.resourceVersion}`, cp.url),
      { ca: cp.caPem, headers: { Authorization: `Bearer ${cp.token}`, Accept: TABLE_ACCEPT } },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buf.slice(0, nl)) as { type: string; object: Table });
            buf = buf.slice(nl + 1);
          }
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', () => undefined);
    req.end();
    try {
      await eventually(async () => {
        const r = await call(cp, 'POST', CMS, { body: { metadata: { name: 'w1' } } });
        return r.status === 201;
      });
      await call(cp, 'PATCH', `${CMS}/w1`, {
        body: { metadata: { labels: { x: 'y' } } },
        contentType: 'application/merge-patch+json',
      });
      await eventually(() => events.length >= 2, { what: 'two watch events' });
      assert.deepEqual(
        events.map((e) => e.type),
        ['ADDED', 'MODIFIED'],
      );
      for (const e of events) {
        assert.equal(e.object.kind, 'Table');
        assert.equal(e.object.rows.length, 1);
        assert.equal(e.object.rows[0].cells[0], 'w1');
        assert.equal(e.object.rows[0].object?.kind, 'PartialObjectMetadata');
      }
      assert.equal(events[0].object.columnDefinitions?.length, 3);
      assert.equal(events[1].object.columnDefinitions, null);
    } finally {
      req.destroy();
    }
  });
});
