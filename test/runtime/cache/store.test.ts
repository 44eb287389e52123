import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Store, compactJson, objectKey } from '../../../src/runtime/cache/store.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';

function o(name: string, ns: string | undefined, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { metadata: { name, ...(ns ? { namespace: ns } : {}), resourceVersion: rv, uid: `u-${name}`, ...extra } };
}

test('keys are namespace/name, or name for cluster-scoped objects', () => {
  assert.equal(objectKey(o('a', 'ns', '1')), 'ns/a');
  assert.equal(objectKey(o('n1', undefined, '1')), 'n1');
});

test('built-in namespace and ownerUid indexes follow upserts and removals', () => {
  const s = new Store<KubeObject>();
  s.upsert(o('a', 'x', '1', { ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'p', uid: 'owner-1' }] }));
  s.upsert(o('b', 'x', '1'));
  s.upsert(o('c', 'y', '1', { ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'p', uid: 'owner-1' }] }));
  assert.deepEqual(
    s
      .byIndex('namespace', 'x')
      .map((x) => x.metadata.name)
      .sort(),
    ['a', 'b'],
  );
  assert.deepEqual(
    s
      .byIndex('ownerUid', 'owner-1')
      .map((x) => x.metadata.name)
      .sort(),
    ['a', 'c'],
  );
  // The owner goes away from `a`: the index must forget it.
  s.upsert(o('a', 'x', '2'));
  assert.deepEqual(
    s.byIndex('ownerUid', 'owner-1').map((x) => x.metadata.name),
    ['c'],
  );
  s.remove('y/c');
  assert.deepEqual(s.byIndex('ownerUid', 'owner-1'), []);
  assert.throws(() => s.byIndex('nope', 'x'), /no index named "nope"/);
});

test('custom indexes are built over existing content; a throwing index function is contained', () => {
  const errors: string[] = [];
  const s = new Store<KubeObject>((name) => errors.push(name));
  s.upsert(o('a', 'x', '1', { labels: { app: 'web' } }));
  s.upsert(o('b', 'x', '1', { labels: { app: 'db' } }));
  s.addIndex('app', (x) => (x.metadata.labels?.app ? [x.metadata.labels.app] : []));
  assert.deepEqual(
    s.byIndex('app', 'web').map((x) => x.metadata.name),
    ['a'],
  );
  assert.throws(() => s.addIndex('app', () => []), /already exists/);
  s.addIndex('bad', () => {
    throw new Error('boom');
  });
  assert.deepEqual(errors, ['bad', 'bad']);
  s.upsert(o('c', 'x', '1'));
  assert.equal(s.get('x/c')?.metadata.name, 'c');
});

test('replace swaps the content and reports adds, updates and deletes (unchanged RVs are not reported)', () => {
  const s = new Store<KubeObject>();
  const keep = o('keep', 'x', '5');
  s.upsert(keep);
  s.upsert(o('change', 'x', '5'));
  s.upsert(o('gone', 'x', '5'));
  s.upsert(o('recreated', 'x', '5'));
  const diff = s.replace([
    o('keep', 'x', '5'),
    o('change', 'x', '9'),
    o('new', 'x', '9'),
    o('recreated', 'x', '9', { uid: 'other-uid' }),
  ]);
  assert.deepEqual(diff.added.map((x) => x.metadata.name).sort(), ['new', 'recreated']);
  assert.deepEqual(
    diff.updated.map(([a, b]) => [a.metadata.resourceVersion, b.metadata.resourceVersion]),
    [['5', '9']],
  );
  assert.deepEqual(diff.deleted.map((x) => x.metadata.name).sort(), ['gone', 'recreated']);
  assert.equal(s.get('x/keep'), keep, 'an unchanged object keeps its cached instance');
  assert.deepEqual(s.keys().sort(), ['x/change', 'x/keep', 'x/new', 'x/recreated']);
  assert.deepEqual(s.byIndex('namespace', 'x').length, 4);
});

/** A full GC without --expose-gc on the command line (node:test runs files without flags). */
function fullGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** WeakRef targets touched in this task stay alive until it ends; GC after the next macrotask. */
async function collect(gc: () => void): Promise<void> {
  await new Promise((r) => setImmediate(r));
  gc();
}

test('objects nobody holds are re-parsed from JSON: equal content, indexes intact, frozen when asked', async () => {
  const gc = fullGc();
  const s = new Store<KubeObject>({ freezeObjects: true });
  const owner = [{ apiVersion: 'v1', kind: 'K', name: 'p', uid: 'owner-1' }];
  s.replace([o('a', 'x', '1', { ownerReferences: owner, labels: { note: 'café ✓ 日本' } }), o('b', 'x', '1')]);
  s.upsert(o('c', 'y', '2', { ownerReferences: owner }));
  const handedOut = new WeakRef(s.get('x/b')!);
  await collect(gc);
  assert.equal(handedOut.deref(), undefined, 'the store does not keep parsed objects alive');

  const a = s.get('x/a')!;
  assert.deepEqual(a, o('a', 'x', '1', { ownerReferences: owner, labels: { note: 'café ✓ 日本' } }));
  assert.equal(Object.isFrozen(a.metadata), true, 're-parsed objects are frozen with freezeObjects');
  assert.equal(s.get('x/a'), a, 'while someone holds an object, reads share that instance');
  assert.equal(
    s.list().find((x) => x.metadata.name === 'a'),
    a,
  );
  assert.deepEqual(
    s
      .byIndex('ownerUid', 'owner-1')
      .map((x) => x.metadata.name)
      .sort(),
    ['a', 'c'],
  );
  assert.deepEqual(
    s.byIndex('namespace', 'y').map((x) => x.metadata.name),
    ['c'],
  );

  // Removal and re-indexing work from the stored index values, without the objects.
  await collect(gc);
  assert.equal(s.discard('y/c'), true);
  assert.equal(s.discard('y/c'), false);
  assert.deepEqual(
    s.byIndex('ownerUid', 'owner-1').map((x) => x.metadata.name),
    ['a'],
  );
  assert.deepEqual(s.byIndex('namespace', 'y'), []);
  s.addIndex('owner-name', (x) => (x.metadata.ownerReferences ?? []).map((r) => r.name));
  assert.deepEqual(
    s.byIndex('owner-name', 'p').map((x) => x.metadata.name),
    ['a'],
  );
  await collect(gc);
  const diff = s.replace([o('a', 'x', '1', { ownerReferences: owner, labels: { note: 'café ✓ 日本' } })]);
  assert.deepEqual(diff.added, []);
  assert.deepEqual(diff.updated, []);
  assert.deepEqual(
    diff.deleted.map((x) => x.metadata.name),
    ['b'],
  );
  assert.deepEqual(
    s.byIndex('owner-name', 'p').map((x) => x.metadata.name),
    ['a'],
  );
});

test('keepParsedObjects holds the objects themselves', async () => {
  const gc = fullGc();
  const s = new Store<KubeObject>({ keepParsedObjects: true });
  const a = o('a', 'x', '1');
  s.upsert(a);
  s.replace([a, o('b', 'x', '1')]);
  const b = s.get('x/b');
  await collect(gc);
  assert.equal(s.get('x/a'), a);
  assert.equal(s.get('x/b'), b);
  assert.deepEqual(s.byIndex('namespace', 'x').length, 2);
});

test('compactJson keeps text one-byte unless most of it is wide, and always round-trips', () => {
  const mostlyAscii = { note: `${'a'.repeat(100)} ✓ 😀` };
  const text = compactJson(mostlyAscii);
  assert.match(text, /\\u2713/);
  assert.doesNotMatch(text, /[\u0100-\uffff]/);
  assert.deepEqual(JSON.parse(text), mostlyAscii);
  const mostlyWide = { note: '日本語'.repeat(50) };
  assert.equal(compactJson(mostlyWide), JSON.stringify(mostlyWide));
  const latin1 = { note: 'café' };
  assert.equal(compactJson(latin1), JSON.stringify(latin1));
});
