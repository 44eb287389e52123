// The in-memory storage: ordered prefix lists, snapshots at a past revision, watches replaying
// history, and compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MemoryStorage,
  RevisionCompactedError,
  RevisionMismatchError,
  type Change,
} from '../../../src/kube/storage/index.ts';
import type { KubeObject } from '../../../src/apimachinery/meta/index.ts';

const cm = (name: string, data = '1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { v: data },
});
const names = (items: { key: string }[]) => items.map((i) => i.key.split('/').pop());

test('list returns one namespace in key order, and stays ordered across creates and deletes', () => {
  const s = new MemoryStorage();
  for (const [ns, n] of [
    ['b', 'z'],
    ['a', 'y'],
    ['b', 'a'],
    ['ab', 'q'],
    ['a', 'b'],
  ])
    s.create(`/core/configmaps/${ns}/${n}`, cm(n));
  assert.deepEqual(names(s.list('/core/configmaps/a/')), ['b', 'y']);
  assert.deepEqual(names(s.list('/core/configmaps/b/')), ['a', 'z']);
  assert.deepEqual(
    s.list('/core/configmaps/').map((i) => i.key),
    [
      '/core/configmaps/a/b',
      '/core/configmaps/a/y',
      '/core/configmaps/ab/q',
      '/core/configmaps/b/a',
      '/core/configmaps/b/z',
    ],
  );
  const y = s.get('/core/configmaps/a/y')!;
  s.delete(y.key, y.revision);
  s.create('/core/configmaps/a/c', cm('c'));
  assert.deepEqual(names(s.list('/core/configmaps/a/')), ['b', 'c']);
  assert.equal(s.count('/core/configmaps/'), 5);
});

test('writes stamp the revision; a stale expected revision is refused', () => {
  const s = new MemoryStorage();
  const a = s.create('/core/configmaps/d/a', cm('a'));
  assert.equal(JSON.parse(a.json).metadata.resourceVersion, String(a.revision));
  const b = s.update(a.key, cm('a', '2'), a.revision);
  assert.ok(b.revision > a.revision);
  assert.throws(() => s.update(a.key, cm('a', '3'), a.revision), RevisionMismatchError);
});

test('listAt reconstructs a past revision from history', () => {
  const s = new MemoryStorage();
  const a = s.create('/core/configmaps/d/a', cm('a', 'old'));
  const rev = s.currentRevision();
  s.update(a.key, cm('a', 'new'), a.revision);
  s.create('/core/configmaps/d/b', cm('b'));
  const past = s.listAt('/core/configmaps/d/', rev);
  assert.deepEqual(names(past), ['a']);
  assert.equal(JSON.parse(past[0].json).data.v, 'old');
});

test('watch replays changes after a revision, then streams; compaction makes old revisions 410', () => {
  const s = new MemoryStorage({ historySize: 3 });
  const start = s.currentRevision();
  const a = s.create('/core/configmaps/d/a', cm('a'));
  s.update(a.key, cm('a', '2'), a.revision);
  const seen: Change[] = [];
  const w = s.watch('/core/configmaps/d/', start, (c) => seen.push(c));
  s.create('/core/secrets/d/x', cm('x'));
  s.create('/core/configmaps/d/b', cm('b'));
  w.stop();
  assert.deepEqual(
    seen.map((c) => `${c.type} ${c.key.split('/').pop()}`),
    ['ADDED a', 'MODIFIED a', 'ADDED b'],
  );
  // Four changes with a history of three: the first is gone.
  assert.throws(() => s.watch('/', start, () => {}), RevisionCompactedError);
  s.compact();
  assert.throws(() => s.listAt('/core/configmaps/', start + 1), RevisionCompactedError);
});
