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

test('keys kept sorted between lists: random creates and deletes interleaved with lists', () => {
  const s = new MemoryStorage();
  const live = new Set<string>();
  let seed = 7;
  const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let step = 0; step < 2000; step++) {
    const key = `/core/configmaps/ns${rand(3)}/c-${rand(200)}`;
    const stored = s.get(key);
    if (stored) {
      s.delete(key, stored.revision);
      live.delete(key);
    } else {
      s.create(key, cm(key.split('/').pop()!));
      live.add(key);
    }
    if (step % 7 === 0) {
      const ns = `/core/configmaps/ns${rand(3)}/`;
      const want = [...live].filter((k) => k.startsWith(ns)).sort();
      assert.deepEqual(
        s.list(ns).map((i) => i.key),
        want,
        `step ${step}`,
      );
    }
  }
  assert.deepEqual(
    s.list('/core/configmaps/').map((i) => i.key),
    [...live].sort(),
  );
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

test('a page starts after a key, now and at a past revision whose keys were since changed', () => {
  const s = new MemoryStorage();
  const revs = new Map<string, number>();
  for (const n of ['a', 'b', 'c', 'd', 'e', 'f'])
    revs.set(n, s.create(`/core/configmaps/d/${n}`, cm(n, 'old')).revision);
  s.create('/core/configmaps/e/a', cm('a'));
  const page = (opts: { revision?: number; after?: string; limit?: number }) => {
    const p = s.listPage('/core/configmaps/d/', opts);
    return { names: names(p.items), remaining: p.remaining };
  };
  assert.deepEqual(page({ after: '/core/configmaps/d/b', limit: 2 }), { names: ['c', 'd'], remaining: 2 });
  assert.deepEqual(page({ after: '/core/configmaps/d/bb' }), { names: ['c', 'd', 'e', 'f'], remaining: 0 });
  assert.deepEqual(page({ after: '/core/configmaps/d/f' }), { names: [], remaining: 0 });
  assert.deepEqual(page({ after: '/core/configmaps/z' }), { names: [], remaining: 0 });
  // A key before the prefix starts at the prefix; nothing of the next namespace leaks in.
  assert.deepEqual(page({ after: '/core/configmaps/a', limit: 10 }), {
    names: ['a', 'b', 'c', 'd', 'e', 'f'],
    remaining: 0,
  });

  const rev = s.currentRevision();
  s.delete('/core/configmaps/d/c', revs.get('c')!);
  s.update('/core/configmaps/d/e', cm('e', 'new'), revs.get('e')!);
  s.create('/core/configmaps/d/cc', cm('cc'));
  s.delete('/core/configmaps/d/f', revs.get('f')!);
  s.create('/core/configmaps/d/f', cm('f', 'again'));
  s.create('/core/configmaps/d/g', cm('g'));
  const then = s.listPage('/core/configmaps/d/', { revision: rev, after: '/core/configmaps/d/b', limit: 3 });
  assert.deepEqual(names(then.items), ['c', 'd', 'e']);
  assert.deepEqual(
    then.items.map((o) => JSON.parse(o.json).data.v),
    ['old', 'old', 'old'],
  );
  assert.equal(then.remaining, 1);
  assert.deepEqual(page({ revision: rev, after: '/core/configmaps/d/e' }), { names: ['f'], remaining: 0 });
  assert.deepEqual(page({ after: '/core/configmaps/d/b' }), { names: ['cc', 'd', 'e', 'f', 'g'], remaining: 0 });
  assert.deepEqual(page({ after: '/core/configmaps/d/b', limit: 1 }), { names: ['cc'], remaining: 4 });
  s.compact();
  assert.throws(() => s.listPage('/core/configmaps/d/', { revision: rev }), RevisionCompactedError);
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
