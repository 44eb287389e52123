import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, objectKey } from '../../../src/runtime/cache/store.ts';
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
