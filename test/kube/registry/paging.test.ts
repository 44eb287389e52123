// Paged LIST (limit/continue): every page after the first is served from the snapshot of the
// first page's resourceVersion, whatever was written since; with a label selector kube's store
// gives no remainingItemCount (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go, GetList:
// "Only set remainingItemCount if the predicate is empty").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';

const CM = '/api/v1/namespaces/default/configmaps';

interface CmList {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { metadata: { name: string; labels?: Record<string, string> }; data?: Record<string, string> }[];
}

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
  for (let i = 0; i < 10; i++) {
    const labels = { parity: i % 2 === 0 ? 'even' : 'odd' };
    const res = await call(cp, 'POST', CM, { metadata: { name: `p${i}`, labels }, data: { v: 'first' } });
    assert.equal(res.code, 201, res.text);
  }
});
after(() => cp.stop());

async function page(query: string): Promise<CmList> {
  const res = await call(cp, 'GET', `${CM}?${query}`);
  assert.equal(res.code, 200, res.text);
  return res.json as unknown as CmList;
}

test('later pages show the first page snapshot although objects were written meanwhile', async () => {
  const first = await page('limit=3');
  assert.deepEqual(
    first.items.map((i) => i.metadata.name),
    ['kube-root-ca.crt', 'p0', 'p1'],
  );
  assert.equal(first.metadata.remainingItemCount, 8);
  // Changes after the snapshot: a deleted object, a changed one, a new one (in the middle of the key order).
  assert.equal((await call(cp, 'DELETE', `${CM}/p5`)).code, 200);
  assert.equal(
    (await call(cp, 'PATCH', `${CM}/p6`, { data: { v: 'second' } }, { 'Content-Type': 'application/merge-patch+json' }))
      .code,
    200,
  );
  assert.equal((await call(cp, 'POST', CM, { metadata: { name: 'p55' } })).code, 201);

  const seen: CmList['items'] = [...first.items];
  let cont = first.metadata.continue;
  while (cont) {
    const next = await page(`limit=3&continue=${encodeURIComponent(cont)}`);
    assert.equal(next.metadata.resourceVersion, first.metadata.resourceVersion);
    seen.push(...next.items);
    cont = next.metadata.continue;
  }
  assert.deepEqual(
    seen.map((i) => i.metadata.name),
    ['kube-root-ca.crt', 'p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'],
  );
  assert.equal(seen.find((i) => i.metadata.name === 'p6')?.data?.v, 'first');
  // A new list sees the present.
  const now = (await page('limit=500')).items.map((i) => i.metadata.name);
  assert.ok(now.includes('p55') && !now.includes('p5'));
});

test('with a label selector: pages hold only matches, no remainingItemCount, no empty last page', async () => {
  const names: string[] = [];
  let cont: string | undefined;
  let pages = 0;
  do {
    const next = await page(`labelSelector=parity%3Dodd&limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    pages++;
    assert.ok(next.items.length > 0, 'an empty page');
    assert.equal(next.metadata.remainingItemCount, undefined);
    names.push(...next.items.map((i) => i.metadata.name));
    cont = next.metadata.continue;
  } while (cont);
  // p1, p3, p7, p9 (p5 was deleted by the test before): two full pages and no third.
  assert.deepEqual(names, ['p1', 'p3', 'p7', 'p9']);
  assert.equal(pages, 2);
});
