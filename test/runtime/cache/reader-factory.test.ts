import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, settle } from '../../../src/runtime/util/clock.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { InformerFactory } from '../../../src/runtime/cache/factory.ts';
import { CacheNotSyncedError, CacheReader, NoInformerError } from '../../../src/runtime/cache/reader.ts';
import { parseLabelSelector } from '../../../src/runtime/cache/index.ts';
import type { Scope } from '../../../src/runtime/cache/scope.ts';
import { ConfigMaps, Namespaces, Secrets } from '../../../src/runtime/client/resources.ts';
import type { KubeObject, ResourceType } from '../../../src/runtime/client/types.ts';
import { FakeListerWatcher, obj } from './fake-list-watch.ts';

function factory() {
  const fakes = new Map<string, FakeListerWatcher>();
  const f = new InformerFactory(null, {
    clock: new FakeClock(0),
    logger: silentLogger(),
    metricsRegistry: null,
    listerWatcher: (type: ResourceType, scope: Scope) => {
      const lw = new FakeListerWatcher();
      // The fake serves what the scope selects from a fixed data set.
      const data = [
        obj('a1', 'a', { metadata: { name: 'a1', labels: { app: 'web' } } }),
        obj('a2', 'a', { metadata: { name: 'a2', labels: { app: 'db' } } }),
        obj('b1', 'b', { metadata: { name: 'b1', labels: { app: 'web' } } }),
      ];
      for (const o of data) {
        if (scope.namespace && o.metadata.namespace !== scope.namespace) continue;
        if (scope.labelSelector && !parseLabelSelector(scope.labelSelector).matches(o.metadata.labels)) continue;
        lw.put(type === Namespaces ? obj(o.metadata.namespace!, undefined) : o);
      }
      fakes.set(`${type.plural}|${JSON.stringify(scope)}`, lw);
      return lw;
    },
  });
  return { f, fakes };
}

async function synced(f: InformerFactory): Promise<void> {
  for (let i = 0; i < 500 && !f.allSynced(); i++) await settle();
  assert.ok(f.allSynced());
}

test('one shared informer per kind and scope', () => {
  const { f } = factory();
  const x = f.informerFor(ConfigMaps);
  assert.equal(f.informerFor(ConfigMaps, {}), x);
  assert.equal(f.informerFor(ConfigMaps, { namespace: '' }), x);
  const ns = f.informerFor(ConfigMaps, { namespace: 'a' });
  assert.notEqual(ns, x);
  assert.equal(f.informerFor(ConfigMaps, { namespace: 'a' }), ns);
  assert.equal(f.informersOf(ConfigMaps).length, 2);
  assert.equal(f.informersOf(Secrets).length, 0);
  // Cluster-scoped kinds ignore a namespace in the scope.
  assert.equal(f.informerFor(Namespaces, { namespace: 'a' }), f.informerFor(Namespaces));
  assert.throws(() => f.informerFor(ConfigMaps, {}, { transform: null }), /transform can only be set/);
});

test('informers created after start() start at once; waitForSync covers all', async () => {
  const { f } = factory();
  f.informerFor(ConfigMaps, { namespace: 'a' });
  f.start();
  const late = f.informerFor(ConfigMaps, { namespace: 'b' });
  assert.equal(late.isStarted(), true);
  await f.waitForSync(undefined, 1000);
  assert.equal(f.allSynced(), true);
  assert.equal(f.healthy(), true);
  assert.deepEqual(
    f.status().map((s) => [s.scope, s.objects, s.synced]),
    [
      ['namespace=a', 2, true],
      ['namespace=b', 1, true],
    ],
  );
  await f.stop();
});

test('CacheReader refuses reads that no informer covers instead of starting one', async () => {
  const { f } = factory();
  const reader = new CacheReader(f);
  assert.throws(() => reader.get(Secrets, 's', 'a'), NoInformerError);
  f.informerFor(ConfigMaps, { namespace: 'a' });
  f.start();
  await synced(f);
  assert.equal(f.informersOf(Secrets).length, 0, 'no informer was started by the failed read');
  assert.equal(reader.get<KubeObject>(ConfigMaps, 'a1', 'a')?.metadata.name, 'a1');
  assert.throws(
    () => reader.get(ConfigMaps, 'b1', 'b'),
    /no informer caches ConfigMap in namespace "b" \(existing scopes: "namespace=a"\)/,
  );
  assert.throws(() => reader.list(ConfigMaps), /across all namespaces/);
  assert.deepEqual(
    reader.list(ConfigMaps, { namespace: 'a', labelSelector: 'app=web' }).map((o) => o.metadata.name),
    ['a1'],
  );
  await f.stop();
});

test('CacheReader picks the best informer and asks for a scope when ambiguous', async () => {
  const { f } = factory();
  const reader = new CacheReader(f);
  const wide = f.informerFor(ConfigMaps);
  const web = f.informerFor(ConfigMaps, { labelSelector: 'app=web' });
  const db = f.informerFor(ConfigMaps, { namespace: 'a', labelSelector: 'app=db' });
  assert.throws(() => reader.list(ConfigMaps), CacheNotSyncedError);
  f.start();
  await synced(f);
  assert.equal(reader.informer(ConfigMaps, { namespace: 'b' }), wide, 'the unselected cluster-wide informer wins');
  assert.equal(reader.list(ConfigMaps).length, 3);
  assert.equal(reader.list(ConfigMaps, { namespace: 'a' }).length, 2);
  assert.equal(reader.list(ConfigMaps, { scope: { labelSelector: 'app=web' } }).length, 2);
  assert.equal(reader.informer(ConfigMaps, { scope: { namespace: 'a', labelSelector: 'app=db' } }), db);
  assert.notEqual(web, wide);
  assert.throws(() => reader.list(ConfigMaps, { scope: { namespace: 'zzz' } }), NoInformerError);
  await f.stop();

  const { f: g } = factory();
  g.informerFor(ConfigMaps, { labelSelector: 'app=web' });
  g.informerFor(ConfigMaps, { labelSelector: 'app=db' });
  g.start();
  await synced(g);
  assert.throws(() => new CacheReader(g).list(ConfigMaps), /several scoped informers.*pass \{ scope \}/);
  await g.stop();
});

test('label selectors follow the server grammar', () => {
  const l = { app: 'web', tier: 'front', n: '5' };
  const t = (s: string): boolean => parseLabelSelector(s).matches(l);
  assert.equal(t(''), true);
  assert.equal(t('app=web'), true);
  assert.equal(t('app==web,tier=front'), true);
  assert.equal(t('app!=web'), false);
  assert.equal(t('app in (web, db)'), true);
  assert.equal(t('app notin (web,db)'), false);
  assert.equal(t('tier,!missing'), true);
  assert.equal(t('!app'), false);
  assert.equal(t('missing!=x'), true);
  assert.equal(t('n>4,n<6'), true);
  assert.equal(t('n>5'), false);
  // The server's parser: a syntax error is the 400 BadRequest a list with that selector gets.
  assert.throws(() => parseLabelSelector('a=b=c'), { name: 'StatusError', code: 400, reason: 'BadRequest' });
});
