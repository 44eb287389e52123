// The etcd store against a real etcd: the same semantics as the memory store (conditional writes,
// ordered watches, 410 after compaction), resourceVersions that are etcd's revisions and survive a
// reopen, objects stored as kube-apiserver stores them, and several stores (API servers) on one
// etcd that never overwrite each other and see each other's writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import {
  EtcdStorage,
  EtcdStorageError,
  LocalEtcd,
  KeyExistsError,
  KeyNotFoundError,
  RevisionCompactedError,
  RevisionMismatchError,
  type Change,
  type EtcdStorageOptions,
} from '../../../src/kube/storage/index.ts';
import type { KubeObject } from '../../../src/apimachinery/meta/index.ts';
import { startTestEtcd } from '../../helpers/etcd.ts';
import { waitFor } from '../../helpers/wait.ts';
import { cm, key } from './fixtures.ts';

const CMS = '/core/configmaps/';

function open(t: { after(fn: () => unknown): void }, options: EtcdStorageOptions): EtcdStorage {
  const s = new EtcdStorage(options);
  t.after(() => s.close());
  return s;
}

function etcdClient(t: { after(fn: () => unknown): void }, endpoint: string): Etcd3 {
  const client = new Etcd3({ hosts: endpoint });
  t.after(() => client.close());
  return client;
}

test(
  'writes are conditional etcd transactions; refusals are the memory store errors',
  { timeout: 120_000 },
  async (t) => {
    const { etcd } = await startTestEtcd(t);
    const s = open(t, { endpoints: [etcd.endpoint] });
    const a = s.create(key('a'), cm('a'));
    assert.equal(JSON.parse(a.json).metadata.resourceVersion, String(a.revision));
    assert.throws(() => s.create(key('a'), cm('a')), KeyExistsError);
    const a2 = s.update(key('a'), cm('a', '2'), a.revision);
    assert.ok(a2.revision > a.revision);
    assert.throws(() => s.update(key('a'), cm('a', '3'), a.revision), RevisionMismatchError);
    assert.throws(() => s.update(key('nope'), cm('nope'), 1), KeyNotFoundError);
    assert.throws(() => s.delete(key('a'), a.revision), RevisionMismatchError);
    const gone = s.delete(key('a'), a2.revision);
    assert.equal(JSON.parse(gone.json).data.v, '2');
    assert.equal(JSON.parse(gone.json).metadata.resourceVersion, String(gone.revision));
    assert.throws(() => s.delete(key('a'), gone.revision), KeyNotFoundError);
    assert.equal(s.get(key('a')), undefined);
  },
);

test(
  'objects are stored under the prefix as kube-apiserver stores them: JSON without resourceVersion, revision = mod_revision',
  { timeout: 120_000 },
  async (t) => {
    const { etcd } = await startTestEtcd(t);
    const s = open(t, { endpoints: [etcd.endpoint], prefix: '/registry' });
    const created = s.create(key('b'), cm('b', 'x'));
    const client = etcdClient(t, etcd.endpoint);
    const res = await client.kv.range({ key: Buffer.from('/registry/core/configmaps/default/b') });
    assert.equal(res.kvs.length, 1);
    assert.equal(Number(res.kvs[0].mod_revision), created.revision);
    const stored = JSON.parse(res.kvs[0].value.toString()) as KubeObject;
    assert.equal(stored.metadata.resourceVersion, undefined);
    assert.deepEqual(stored.data, { v: 'x' });
    // A write made with etcd's own tools shows up with its revision.
    const put = await client.kv.put({
      key: Buffer.from('/registry/core/configmaps/default/c'),
      value: Buffer.from(JSON.stringify(cm('c', 'from-etcdctl'))),
    });
    await waitFor(() => s.get(key('c')) !== undefined, 'the index to take a write made outside it');
    assert.equal(s.get(key('c'))!.revision, Number(put.header.revision));
    assert.equal(JSON.parse(s.get(key('c'))!.json).metadata.resourceVersion, put.header.revision);
  },
);

test(
  'watches replay and stream in revision order; compaction answers 410 and compacts etcd',
  { timeout: 120_000 },
  async (t) => {
    const { etcd } = await startTestEtcd(t);
    const s = open(t, { endpoints: [etcd.endpoint] });
    const start = s.currentRevision();
    const a = s.create(key('a'), cm('a'));
    s.update(key('a'), cm('a', '2'), a.revision);
    const live: Change[] = [];
    const w = s.watch(CMS, start, (c) => live.push(c));
    t.after(() => w.stop());
    s.create(key('b'), cm('b'));
    s.delete(key('a'), s.get(key('a'))!.revision);
    assert.deepEqual(
      live.map((c) => `${c.type} ${c.key.split('/').pop()}`),
      ['ADDED a', 'MODIFIED a', 'ADDED b', 'DELETED a'],
    );
    for (let i = 1; i < live.length; i++) assert.ok(live[i].revision > live[i - 1].revision);
    assert.equal(live[1].prevJson, live[0].json);
    assert.deepEqual(
      s.listAt(CMS, a.revision).map((o) => o.key),
      [key('a')],
    );

    const before = s.currentRevision();
    s.compact();
    assert.throws(() => s.watch(CMS, start, () => undefined), RevisionCompactedError);
    const client = etcdClient(t, etcd.endpoint);
    await assert.rejects(
      client.kv.range({ key: Buffer.from('/registry/core/configmaps/default/a'), revision: start }),
      /compacted/,
    );
    s.create(key('c'), cm('c'));
    assert.ok(s.currentRevision() > before);
  },
);

test('a reopened store has every object; revisions keep growing from etcd', { timeout: 120_000 }, async (t) => {
  const { etcd } = await startTestEtcd(t);
  const first = new EtcdStorage({ endpoints: [etcd.endpoint], listPageSize: 7 });
  for (let i = 0; i < 30; i++) first.create(key(`o${i}`), cm(`o${i}`, String(i)));
  const last = first.currentRevision();
  const snapshot = first.list(CMS).map((o) => [o.key, o.revision, o.json]);
  await first.close();
  assert.throws(() => first.create(key('closed'), cm('closed')), EtcdStorageError);

  // Paged read: 30 objects in pages of 7.
  const second = open(t, { endpoints: [etcd.endpoint], listPageSize: 7 });
  assert.deepEqual(
    second.list(CMS).map((o) => [o.key, o.revision, o.json]),
    snapshot,
  );
  assert.ok(second.currentRevision() >= last);
  const next = second.create(key('later'), cm('later'));
  assert.ok(next.revision > last);
});

test(
  'two stores on one etcd (two API servers): each sees the other, and a stale write loses',
  { timeout: 120_000 },
  async (t) => {
    const { etcd } = await startTestEtcd(t);
    const one = open(t, { endpoints: [etcd.endpoint] });
    const two = open(t, { endpoints: [etcd.endpoint] });
    const seenByTwo: Change[] = [];
    const w = two.watch(CMS, two.currentRevision(), (c) => seenByTwo.push(c));
    t.after(() => w.stop());

    const made = one.create(key('shared'), cm('shared', '1'));
    await waitFor(() => two.get(key('shared')) !== undefined, "the second store to see the first one's create");
    assert.equal(two.get(key('shared'))!.revision, made.revision);
    assert.equal(two.get(key('shared'))!.json, made.json);
    assert.equal(seenByTwo[0]?.type, 'ADDED');

    // Both start from the same revision; the first writer wins, the second is refused and, at once,
    // reads the winner's version (its retry builds on it).
    const winner = one.update(key('shared'), cm('shared', 'one'), made.revision);
    assert.throws(() => two.update(key('shared'), cm('shared', 'two'), made.revision), RevisionMismatchError);
    assert.equal(two.get(key('shared'))!.revision, winner.revision);
    const retried = two.update(key('shared'), cm('shared', 'two'), winner.revision);
    await waitFor(() => one.get(key('shared'))?.revision === retried.revision, 'the first store to see the retry');
    assert.equal(JSON.parse(one.get(key('shared'))!.json).data.v, 'two');

    // A key the other store deleted is not-found at once, not a stale mismatch.
    one.delete(key('shared'), retried.revision);
    assert.throws(() => two.update(key('shared'), cm('shared', 'late'), retried.revision), KeyNotFoundError);
    assert.equal(two.get(key('shared')), undefined);
    assert.deepEqual(
      seenByTwo.map((c) => c.type),
      ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED'],
    );
  },
);

test('when etcd restarts, the watch resumes and no change made meanwhile is lost', { timeout: 180_000 }, async (t) => {
  const test = await startTestEtcd(t);
  const watcherStore = open(t, { endpoints: [test.etcd.endpoint], requestTimeoutMs: 5_000 });
  const seen: Change[] = [];
  const w = watcherStore.watch(CMS, watcherStore.currentRevision(), (c) => seen.push(c));
  t.after(() => w.stop());
  const doomed = watcherStore.create(key('doomed'), cm('doomed'));

  await test.restart();
  // Another server writes (and compacts etcd) while the first one's watch is broken or resuming.
  const other = open(t, { endpoints: [test.etcd.endpoint] });
  await waitFor(() => other.get(key('doomed')) !== undefined, 'the second store to load');
  other.delete(key('doomed'), doomed.revision);
  other.create(key('born'), cm('born'));
  other.compact();

  await waitFor(
    () => watcherStore.get(key('born')) !== undefined && watcherStore.get(key('doomed')) === undefined,
    'the first store to catch up after the restart',
    60_000,
    50,
  );
  assert.deepEqual(
    seen.map((c) => `${c.type} ${c.key.split('/').pop()}`),
    ['ADDED doomed', 'DELETED doomed', 'ADDED born'],
  );
  // And it writes again.
  watcherStore.create(key('after'), cm('after'));
  await waitFor(() => other.get(key('after')) !== undefined, 'the second store to see a write after the restart');
});

test(
  'a watch whose resume point etcd compacted away rebuilds the index and tells watchers what changed',
  { timeout: 180_000 },
  async (t) => {
    const test = await startTestEtcd(t);
    // This store waits long before it watches again, so the other one writes and compacts first.
    const slow = open(t, { endpoints: [test.etcd.endpoint], rewatchDelayMs: 8_000 });
    const other = open(t, { endpoints: [test.etcd.endpoint] });
    const kept = slow.create(key('kept'), cm('kept'));
    const doomed = slow.create(key('doomed'), cm('doomed'));
    const changed = slow.create(key('changed'), cm('changed', 'old'));
    const seen: Change[] = [];
    const w = slow.watch(CMS, slow.currentRevision(), (c) => seen.push(c));
    t.after(() => w.stop());

    await test.restart();
    await waitFor(() => other.get(key('changed')) !== undefined, 'the other store to have loaded');
    other.delete(key('doomed'), doomed.revision);
    const after = other.update(key('changed'), cm('changed', 'new'), changed.revision);
    other.create(key('born'), cm('born'));
    other.compact();

    await waitFor(
      () => slow.get(key('born')) !== undefined && slow.get(key('doomed')) === undefined,
      'the slow store to rebuild its index',
      90_000,
      50,
    );
    assert.equal(slow.get(key('changed'))!.revision, after.revision);
    assert.equal(JSON.parse(slow.get(key('changed'))!.json).data.v, 'new');
    assert.equal(slow.get(key('kept'))!.revision, kept.revision);
    assert.deepEqual(seen.map((c) => `${c.type} ${c.key.split('/').pop()}`).sort(), [
      'ADDED born',
      'DELETED doomed',
      'MODIFIED changed',
    ]);
  },
);

test(
  'healthy (readyz) is false while etcd is away and true once the watch is back',
  { timeout: 180_000 },
  async (t) => {
    const test = await startTestEtcd(t);
    const port = Number(new URL(test.etcd.endpoint).port);
    const s = open(t, { endpoints: [test.etcd.endpoint], rewatchDelayMs: 200 });
    assert.equal(s.healthy(), true);
    await test.etcd.stop();
    await waitFor(() => !s.healthy(), 'the store to notice etcd is gone', 30_000, 50);
    // Back on the same data and port; the helper stops it with the test.
    test.etcd = await LocalEtcd.start({ dir: test.dir, port });
    await waitFor(() => s.healthy(), 'the watch to be back', 60_000, 50);
    s.create(key('after'), cm('after'));
  },
);

test('etcd history is compacted every interval, keeping the last interval', { timeout: 120_000 }, async (t) => {
  const { etcd } = await startTestEtcd(t);
  const s = open(t, { endpoints: [etcd.endpoint], compactionIntervalMs: 300 });
  const first = s.create(key('a'), cm('a'));
  s.update(key('a'), cm('a', '2'), first.revision);
  const client = etcdClient(t, etcd.endpoint);
  const at = (revision: number) =>
    client.kv.range({ key: Buffer.from('/registry/core/configmaps/default/a'), revision });
  // Two intervals later the revision seen at the first one is compacted; the newest stays readable.
  await waitFor(
    async () =>
      at(first.revision).then(
        () => false,
        (err: Error) => /compacted/.test(err.message),
      ),
    'the periodic compaction',
    30_000,
    100,
  );
  // The current state is untouched.
  const now = await client.kv.range({ key: Buffer.from('/registry/core/configmaps/default/a') });
  assert.equal(JSON.parse(now.kvs[0].value.toString()).data.v, '2');
  assert.ok(Number((await client.get('compact_rev_key').string()) ?? 0) >= first.revision);
});

test('an etcd that does not answer fails the open with a message naming it', { timeout: 60_000 }, () => {
  assert.throws(
    () => new EtcdStorage({ endpoints: ['http://127.0.0.1:9'], openTimeoutMs: 3_000, requestTimeoutMs: 2_000 }),
    (err: Error) => err instanceof EtcdStorageError && err.message.includes('http://127.0.0.1:9'),
  );
});
