// Watch history bounded by bytes as well as by count (issue #15): a client rewriting a large
// object must not fill the heap. Evicted changes forget their revisions, so a watch from one of
// them is answered 410 Expired, as kube's watch cache answers a resourceVersion it no longer has.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStorage, RevisionCompactedError, type Change } from '../../../src/kube/storage/index.ts';
import type { KubeObject } from '../../../src/apimachinery/meta/index.ts';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call, createNamespace } from '../../helpers/https.ts';
import { openWatch } from '../server/watch/raw-watch.ts';

const big = (name: string, n: number, size: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { n: String(n), big: 'x'.repeat(size) },
});

test('the kept history never holds more bytes than historyBytes; older revisions are compacted', () => {
  const s = new MemoryStorage({ historyBytes: 100_000 });
  const first = s.create('/core/configmaps/a/big', big('big', 0, 10_000));
  let current = first;
  for (let i = 1; i <= 50; i++) {
    current = s.update('/core/configmaps/a/big', big('big', i, 10_000), current.revision);
    assert.ok(s.historyUsage().bytes <= 100_000, `history holds ${s.historyUsage().bytes} B after ${i} updates`);
  }
  const usage = s.historyUsage();
  // Each update keeps the object and its previous state (~20 KB): four or five fit.
  assert.ok(usage.changes >= 4 && usage.changes <= 5, `${usage.changes} changes kept`);
  assert.ok(s.oldestRevision() > first.revision);
  assert.throws(() => s.watch('/core/configmaps/', first.revision, () => {}), RevisionCompactedError);
  const replayed: number[] = [];
  s.watch('/core/configmaps/', s.oldestRevision(), (c) => replayed.push(c.revision)).stop();
  assert.equal(replayed.at(-1), current.revision);
  assert.equal(replayed.length, usage.changes);
});

test('the count bound still applies when the changes are small', () => {
  const s = new MemoryStorage({ historySize: 5 });
  for (let i = 0; i < 20; i++) s.create(`/core/configmaps/a/c${i}`, big(`c${i}`, i, 10));
  assert.equal(s.historyUsage().changes, 5);
  assert.equal(s.oldestRevision(), s.currentRevision() - 5);
});

test('a change larger than the whole bound is forgotten at once, and watching from now still works', () => {
  const s = new MemoryStorage({ historyBytes: 1_000 });
  const created = s.create('/core/configmaps/a/big', big('big', 0, 5_000));
  assert.deepEqual(s.historyUsage(), { changes: 0, bytes: 0 });
  assert.equal(s.oldestRevision(), created.revision);
  const seen: string[] = [];
  const w = s.watch('/core/configmaps/', created.revision, (c) => seen.push(c.type));
  s.update('/core/configmaps/a/big', big('big', 1, 10), created.revision);
  w.stop();
  assert.deepEqual(seen, ['MODIFIED']);
});

test('memory held for a kept change (its watch lines) counts against the bound; anything else is ignored', () => {
  const s = new MemoryStorage({ historyBytes: 100_000 });
  const changes: Change[] = [];
  const w = s.watch('/core/configmaps/', s.currentRevision(), (c) => changes.push(c));
  let current = s.create('/core/configmaps/a/big', big('big', 0, 10_000));
  const before = s.historyUsage().bytes;
  s.chargeHeld(changes[0], 10_050);
  assert.equal(s.historyUsage().bytes, before + 10_050);
  // A stored object is not history: charging it changes nothing.
  s.chargeHeld(s.get('/core/configmaps/a/big')!, 10_050);
  assert.equal(s.historyUsage().bytes, before + 10_050);
  // With every change's line charged (about its object again), about half as many changes fit.
  for (let i = 1; i <= 50; i++) {
    current = s.update('/core/configmaps/a/big', big('big', i, 10_000), current.revision);
    s.chargeHeld(changes.at(-1)!, 10_050);
    assert.ok(s.historyUsage().bytes <= 100_000, `history holds ${s.historyUsage().bytes} B after ${i} updates`);
  }
  w.stop();
  const kept = s.historyUsage().changes;
  assert.ok(kept >= 2 && kept <= 3, `${kept} changes kept`);
  // An evicted change's late charge is ignored too.
  s.chargeHeld(changes[0], 1_000_000);
  assert.ok(s.historyUsage().bytes <= 100_000);
});

const HISTORY_BYTES = 4 * 1024 * 1024;
describe('through the API server', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ historyBytes: HISTORY_BYTES });
    await createNamespace(cp, 'hist');
  });
  after(async () => {
    await cp?.stop();
  });

  test('the lines sent to a live watcher count too: history and lines together stay within historyBytes', async () => {
    const storage = cp.internals.storage;
    assert.ok(storage instanceof MemoryStorage);
    const created = await call(cp, 'POST', '/api/v1/namespaces/hist/configmaps', {
      metadata: { name: 'watched' },
      data: { n: '0', big: 'w'.repeat(200_000) },
    });
    assert.equal(created.code, 201, created.text);
    const rv = (created.json.metadata as { resourceVersion: string }).resourceVersion;
    const watch = await openWatch(cp, `/api/v1/namespaces/hist/configmaps?watch=1&resourceVersion=${rv}`);
    for (let i = 1; i <= 30; i++) {
      const r = await call(
        cp,
        'PATCH',
        '/api/v1/namespaces/hist/configmaps/watched',
        { data: { n: String(i) } },
        {
          'Content-Type': 'application/merge-patch+json',
        },
      );
      assert.equal(r.code, 200, r.text);
      await watch.waitForLines(i);
      assert.ok(storage.historyUsage().bytes <= HISTORY_BYTES, `history holds ${storage.historyUsage().bytes} B`);
    }
    watch.close();
    // Each kept change holds ~400 KB of JSON and its ~200 KB line: at most 4 MiB / 600 KB of them.
    const kept = storage.historyUsage();
    assert.ok(kept.changes <= 7, `${kept.changes} changes kept`);
    assert.ok(kept.bytes > kept.changes * 550_000, `${kept.bytes} B for ${kept.changes} changes counts their lines`);
  });

  test('patching a 200 KB ConfigMap 60 times keeps history within historyBytes; a watch from the start gets 410', async () => {
    const storage = cp.internals.storage;
    assert.ok(storage instanceof MemoryStorage);
    const created = await call(cp, 'POST', '/api/v1/namespaces/hist/configmaps', {
      metadata: { name: 'big' },
      data: { n: '0', big: 'y'.repeat(200_000) },
    });
    assert.equal(created.code, 201, created.text);
    const firstRv = (created.json.metadata as { resourceVersion: string }).resourceVersion;
    let lastRv = firstRv;
    for (let i = 1; i <= 60; i++) {
      const r = await call(
        cp,
        'PATCH',
        '/api/v1/namespaces/hist/configmaps/big',
        { data: { n: String(i) } },
        {
          'Content-Type': 'application/merge-patch+json',
        },
      );
      assert.equal(r.code, 200, r.text);
      lastRv = (r.json.metadata as { resourceVersion: string }).resourceVersion;
      assert.ok(storage.historyUsage().bytes <= HISTORY_BYTES, `history holds ${storage.historyUsage().bytes} B`);
    }
    // 60 patches × ~400 KB (the object and its previous state) would be ~24 MB without the bound.
    assert.ok(storage.historyUsage().changes < 20, `${storage.historyUsage().changes} changes kept`);

    // kube answers a watch from a compacted resourceVersion with one ERROR event: 410 Expired.
    const old = await openWatch(cp, `/api/v1/namespaces/hist/configmaps?watch=1&resourceVersion=${firstRv}`);
    await old.waitForLines(1);
    const event = JSON.parse(old.lines[0].toString()) as { type: string; object: Record<string, unknown> };
    assert.equal(event.type, 'ERROR');
    assert.equal(event.object.code, 410);
    assert.equal(event.object.reason, 'Expired');
    assert.match(String(event.object.message), new RegExp(`^too old resource version: ${firstRv} \\(\\d+\\)$`));
    old.close();

    // A watch from the newest resourceVersion is served and sees the next change.
    const fresh = await openWatch(cp, `/api/v1/namespaces/hist/configmaps?watch=1&resourceVersion=${lastRv}`);
    assert.equal(fresh.status, 200);
    await call(
      cp,
      'PATCH',
      '/api/v1/namespaces/hist/configmaps/big',
      { data: { n: 'last' } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    await fresh.waitForLines(1);
    assert.equal((JSON.parse(fresh.lines[0].toString()) as { type: string }).type, 'MODIFIED');
    fresh.close();
  });
});
