// A control plane with `dataDir`: stopping it closes the store, and the next one on the same
// directory serves every object of the first — custom resources included, their CRDs served again
// before the first request — with resourceVersions going on from where they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, startTestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';
import { StorageLockedError } from '../../../src/kube/storage/index.ts';
import { startControlPlane } from '../../../src/kube/control-plane.ts';
import { widgetCrd } from '../crd/fixtures.ts';

const crd = widgetCrd();

test('a control plane on a kept data directory serves what the last one stored', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'peerpods-data-dir-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));

  const first = await startTestCluster({ dataDir });
  let stopped = false;
  t.after(() => (stopped ? undefined : first.stop()));
  assert.equal((await call(first, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).code, 201);
  const widgets = '/apis/example.com/v1/namespaces/default/widgets';
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } };
  // The CRD is served within a tick of its create.
  const created = await eventually(
    async () => {
      const r = await call(first, 'POST', widgets, widget);
      return r.code === 404 ? undefined : r;
    },
    { timeoutMs: 10_000, what: 'the Widget created' },
  );
  assert.ok(created);
  assert.equal(created.code, 201, created.text);
  const uid = (created.json.metadata as { uid: string }).uid;
  const rv = Number((created.json.metadata as { resourceVersion: string }).resourceVersion);
  // A second control plane on the same directory is refused while the first runs.
  await assert.rejects(startControlPlane({ dataDir }), StorageLockedError);
  await first.stop();
  stopped = true;

  const second = await startTestCluster({ dataDir });
  t.after(() => second.stop());
  // Served at once: no wait for the CRD controller.
  const got = await call(second, 'GET', `${widgets}/w1`);
  assert.equal(got.code, 200, got.text);
  assert.equal((got.json.metadata as { uid: string }).uid, uid);
  assert.deepEqual(got.json.spec, { size: 3 });
  const ns = await call(second, 'POST', '/api/v1/namespaces', { metadata: { name: 'after-restart' } });
  assert.equal(ns.code, 201, ns.text);
  assert.ok(Number((ns.json.metadata as { resourceVersion: string }).resourceVersion) > rv);
  // One bootstrap: the namespaces and the `kubernetes` Service of the first start are kept, not doubled.
  const list = await call(second, 'GET', '/api/v1/namespaces');
  const names = (list.json.items as Array<{ metadata: { name: string } }>).map((n) => n.metadata.name);
  assert.equal(new Set(names).size, names.length);
  assert.ok(names.includes('kube-system') && names.includes('after-restart'));
});
