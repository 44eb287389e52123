// The cache against the embedded control plane over HTTPS: reconnects, 410 relists, malformed
// lines, paging, scoping and read-your-writes. Conditions are awaited with deadlines.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { startControlPlane } from '../../../src/kube/index.ts';
import type { ControlPlane } from '../../../src/kube/index.ts';
import { KubeClient } from '../../../src/runtime/client/client.ts';
import { ConfigMaps, Namespaces } from '../../../src/runtime/client/resources.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { InformerFactory } from '../../../src/runtime/cache/factory.ts';
import { listWatchFor } from '../../../src/runtime/cache/list-watch.ts';
import type { ListerWatcher } from '../../../src/runtime/cache/list-watch.ts';
import type { EventHandler } from '../../../src/runtime/cache/informer.ts';
import type { ResourceType } from '../../../src/runtime/client/types.ts';
import type { Scope } from '../../../src/runtime/cache/scope.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { eventually, pool } from './helpers.ts';

let cp: ControlPlane;
let client: KubeClient;
/** Stopped after all tests even when one fails, so no reflector outlives the suite. */
const factories: InformerFactory[] = [];

before(async () => {
  cp = await startControlPlane();
  client = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
});

after(async () => {
  await Promise.all(factories.map((f) => f.stop()));
  client?.close();
  await cp?.stop();
});

let nsCounter = 0;
/**
 * A fresh namespace, returned once it holds the root CA publisher's `kube-root-ca.crt` (as kube's
 * e2e framework waits for it: WaitForKubeRootCAInNamespace, test/e2e/framework/util.go), so the
 * ConfigMaps it holds are that one and the test's own.
 */
async function namespace(): Promise<string> {
  const name = `cache-it-${process.pid}-${++nsCounter}`;
  await client.create(Namespaces, { metadata: { name } });
  await eventually(
    async () => !!(await client.get(ConfigMaps, 'kube-root-ca.crt', name)),
    `kube-root-ca.crt in ${name}`,
  );
  return name;
}

function cm(name: string, ns: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject {
  return { metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, data };
}

function newFactory(extra: { listerWatcher?: (t: ResourceType, s: Scope) => ListerWatcher<KubeObject> } = {}) {
  const registry = new Registry();
  const factory = new InformerFactory(client, { logger: silentLogger(), metricsRegistry: registry, ...extra });
  factories.push(factory);
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values ?? [])
      .filter((v) => Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val))
      .reduce((a, v) => a + v.value, 0);
  };
  return { factory, metric };
}

/** name → data.v of the server's objects vs the cache's. */
async function serverState(ns: string): Promise<Map<string, string>> {
  const l = await client.listAll<KubeObject>(ConfigMaps, { namespace: ns });
  return new Map(l.items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
}

function cacheState(items: KubeObject[]): Map<string, string> {
  return new Map(items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
}

async function cacheMatchesServer(items: () => KubeObject[], ns: string): Promise<boolean> {
  const s = await serverState(ns);
  const c = cacheState(items());
  if (s.size !== c.size) return false;
  for (const [k, v] of s) if (c.get(k) !== v) return false;
  return true;
}

test('paged initial list of more than 500 objects', async () => {
  const ns = await namespace();
  await pool(
    Array.from({ length: 1203 }, (_, i) => i),
    16,
    (i) => client.create(ConfigMaps, cm(`cm-${i}`, ns)),
  );
  const pages: Array<number | undefined> = [];
  const { factory, metric } = newFactory({
    listerWatcher: (t, s) => {
      const lw = listWatchFor<KubeObject>(client, t, s);
      return {
        list: async (call) => {
          const page = await lw.list(call);
          pages.push(page.items.length);
          return page;
        },
        watch: (call) => lw.watch(call),
      };
    },
  });
  const inf = factory.informerFor(ConfigMaps, { namespace: ns });
  factory.start();
  await factory.waitForSync(undefined, 30_000);
  // 1203 of ours and kube-root-ca.crt.
  assert.deepEqual(pages, [500, 500, 204]);
  assert.equal(inf.list().length, 1204);
  assert.equal(inf.list(ns).length, 1204);
  assert.equal(await metric('peerpods_reflector_lists_total'), 1);
  assert.equal(inf.get(ns, 'cm-1202')?.metadata.managedFields, undefined, 'managedFields stripped');
  await factory.stop();
});

test('watch cut mid-stream: no change is lost and the cache equals the server', async () => {
  const ns = await namespace();
  for (let i = 0; i < 20; i++) await client.create(ConfigMaps, cm(`o-${i}`, ns));
  const { factory, metric } = newFactory();
  const inf = factory.informerFor(ConfigMaps, { namespace: ns });
  factory.start();
  await factory.waitForSync(undefined, 10_000);

  // A writer keeps changing objects while every watch connection is cut, repeatedly.
  let writes = 0;
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      const i = writes % 20;
      if (writes % 7 === 3) {
        await client.delete(ConfigMaps, `o-${i}`, ns).catch(() => {});
        await client.create(ConfigMaps, cm(`o-${i}`, ns, { v: String(writes) })).catch(() => {});
      } else {
        await client.patch(ConfigMaps, `o-${i}`, ns, { data: { v: String(writes) } }, 'merge').catch(() => {});
      }
      await client.create(ConfigMaps, cm(`extra-${writes}`, ns)).catch(() => {});
      writes++;
    }
  })();
  for (let round = 0; round < 5; round++) {
    const before = writes;
    await eventually(() => writes >= before + 5, 'writer progress');
    cp.dropWatches();
  }
  stop = true;
  await writer;
  await eventually(() => cacheMatchesServer(() => inf.list(), ns), 'cache equals server', 10_000);
  assert.ok((await metric('peerpods_reflector_watch_restarts_total')) >= 5);
  assert.equal(await metric('peerpods_reflector_relists_total'), 0, 'resumed from the last RV, no relist');
  assert.equal(inf.healthy(), true);
  await factory.stop();
});

test('410 after compaction: relist delivers the add/update/delete differences', async () => {
  const ns = await namespace();
  await client.create(ConfigMaps, cm('keep', ns));
  await client.create(ConfigMaps, cm('change', ns));
  await client.create(ConfigMaps, cm('remove', ns));
  // A gate in front of watch() stands in for a network partition: reconnects wait until it opens.
  let gate: Promise<void> = Promise.resolve();
  let openGate = (): void => {};
  let gatedWatches = 0;
  let openedWatches = 0;
  const { factory, metric } = newFactory({
    listerWatcher: (t, s) => {
      const lw = listWatchFor<KubeObject>(client, t, s);
      return {
        list: (call) => lw.list(call),
        watch: (call) => ({
          [Symbol.asyncIterator]: async function* () {
            gatedWatches++;
            await gate;
            yield* lw.watch({
              ...call,
              onOpen: () => {
                openedWatches++;
                call.onOpen();
              },
            });
          },
        }),
      };
    },
  });
  const inf = factory.informerFor(ConfigMaps, { namespace: ns });
  const events: string[] = [];
  const handler: EventHandler<KubeObject> = {
    onAdd: (o, initial) => events.push(`add:${o.metadata.name}${initial ? ':initial' : ''}`),
    onUpdate: (_a, b) => events.push(`update:${b.metadata.name}:${(b.data as Record<string, string>)?.v ?? ''}`),
    onDelete: (o) => events.push(`delete:${o.metadata.name}`),
  };
  inf.addHandler(handler);
  factory.start();
  await factory.waitForSync(undefined, 10_000);
  await eventually(() => openedWatches === 1, 'first watch open');
  assert.deepEqual(events.sort(), [
    'add:change:initial',
    'add:keep:initial',
    'add:kube-root-ca.crt:initial',
    'add:remove:initial',
  ]);
  events.length = 0;

  gate = new Promise((r) => (openGate = r));
  cp.dropWatches();
  await eventually(() => gatedWatches === 2, 'reconnect attempt held at the gate');
  await client.patch(ConfigMaps, 'change', ns, { data: { v: 'new' } }, 'merge');
  await client.delete(ConfigMaps, 'remove', ns);
  await client.create(ConfigMaps, cm('added', ns));
  cp.compactHistory();
  openGate();

  await eventually(() => events.length === 3, 'relist differences delivered', 15_000);
  assert.deepEqual(events.sort(), ['add:added', 'delete:remove', 'update:change:new']);
  assert.equal(await metric('peerpods_reflector_relists_total', { reason: 'gone' }), 1);
  assert.ok(await cacheMatchesServer(() => inf.list(), ns));
  // And it keeps watching after the relist.
  await client.create(ConfigMaps, cm('after', ns));
  await eventually(() => inf.get(ns, 'after') !== undefined, 'event after relist');
  await factory.stop();
});

test('a malformed line in the watch stream is logged and skipped, not fatal', async () => {
  const ns = await namespace();
  await client.create(ConfigMaps, cm('first', ns));
  // A proxy in front of the control plane that injects garbage at the start of every watch response.
  const proxy = http.createServer((req, res) => {
    const upstream = https.request(
      `${cp.url}${req.url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(cp.url).host }, ca: cp.caPem },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        if (req.url?.includes('watch=true')) {
          res.write('this is not json\n');
          res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: {} } })}\n`);
          res.write(`${JSON.stringify({ type: 'SOMETHING', object: {} })}\n`);
        }
        up.pipe(res);
      },
    );
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const proxied = KubeClient.fromKubeconfigString(
    JSON.stringify({
      clusters: [{ name: 'p', cluster: { server: proxyUrl, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: cp.token } }],
      contexts: [{ name: 'p', context: { cluster: 'p', user: 'u' } }],
      'current-context': 'p',
    }),
    { logger: silentLogger(), metricsRegistry: null },
  );
  const registry = new Registry();
  const factory = new InformerFactory(proxied, { logger: silentLogger(), metricsRegistry: registry });
  factories.push(factory);
  try {
    const inf = factory.informerFor(ConfigMaps, { namespace: ns });
    factory.start();
    await factory.waitForSync(undefined, 10_000);
    await client.create(ConfigMaps, cm('second', ns));
    await eventually(() => inf.get(ns, 'second') !== undefined, 'real event after garbage');
    const malformed = (await registry.getSingleMetric('peerpods_reflector_malformed_events_total')!.get()).values;
    assert.equal(
      malformed.reduce((a, v) => a + v.value, 0),
      3,
    );
    assert.equal(inf.healthy(), true);
  } finally {
    await factory.stop();
    proxied.close();
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
  }
});

test('namespace and label scoping: only matching objects are cached; leaving the selector deletes', async () => {
  const a = await namespace();
  const b = await namespace();
  await client.create(ConfigMaps, cm('web-a', a, {}, { app: 'web' }));
  await client.create(ConfigMaps, cm('db-a', a, {}, { app: 'db' }));
  await client.create(ConfigMaps, cm('web-b', b, {}, { app: 'web' }));
  const { factory } = newFactory();
  const inA = factory.informerFor(ConfigMaps, { namespace: a });
  const web = factory.informerFor(ConfigMaps, { labelSelector: 'app=web' });
  const webInA = factory.informerFor(ConfigMaps, { namespace: a, labelSelector: 'app=web' });
  const byName = factory.informerFor(ConfigMaps, { namespace: b, fieldSelector: 'metadata.name=web-b' });
  factory.start();
  await factory.waitForSync(undefined, 10_000);
  const names = (xs: KubeObject[]): string[] => xs.map((o) => o.metadata.name!).sort();
  assert.deepEqual(names(inA.list()), ['db-a', 'kube-root-ca.crt', 'web-a']);
  assert.deepEqual(names(web.list().filter((o) => o.metadata.namespace === a || o.metadata.namespace === b)), [
    'web-a',
    'web-b',
  ]);
  assert.deepEqual(names(webInA.list()), ['web-a']);
  assert.deepEqual(names(byName.list()), ['web-b']);

  const deleted: string[] = [];
  webInA.addHandler({ onDelete: (o) => deleted.push(o.metadata.name!) });
  await client.patch(ConfigMaps, 'web-a', a, { metadata: { labels: { app: 'db' } } }, 'merge');
  await client.create(ConfigMaps, cm('web-a2', a, {}, { app: 'web' }));
  await client.create(ConfigMaps, cm('web-b2', b, {}, { app: 'web' }));
  await eventually(() => webInA.get(a, 'web-a2') !== undefined && deleted.includes('web-a'), 'selector changes');
  assert.deepEqual(names(webInA.list()), ['web-a2']);
  await eventually(() => web.get(b, 'web-b2') !== undefined, 'cluster-wide label informer sees b');
  assert.equal(inA.get(b, 'web-b2'), undefined);
  assert.equal(byName.get(b, 'web-b2'), undefined, 'field selector excludes other names');
  await factory.stop();
});

test('read-your-writes: wait until the cache has seen our own write', async () => {
  const ns = await namespace();
  const { factory } = newFactory();
  const inf = factory.informerFor(ConfigMaps, { namespace: ns });
  factory.start();
  await factory.waitForSync(undefined, 10_000);
  for (let i = 0; i < 10; i++) {
    const written = await client.create<KubeObject>(ConfigMaps, cm(`ryw-${i}`, ns, { v: String(i) }));
    assert.equal(await inf.waitForResourceVersion(written.metadata.resourceVersion!, 5_000), true);
    assert.equal(inf.get(ns, `ryw-${i}`)?.metadata.resourceVersion, written.metadata.resourceVersion);
    const updated = await client.patch<KubeObject>(ConfigMaps, `ryw-${i}`, ns, { data: { v: 'x' } }, 'merge');
    assert.equal(await inf.waitForResourceVersion(updated.metadata.resourceVersion!, 5_000), true);
    assert.equal((inf.get(ns, `ryw-${i}`)?.data as Record<string, string>).v, 'x');
  }
  // A resourceVersion far in the future times out (bounded), returning false.
  const far = String(BigInt(inf.lastResourceVersion()) + 1_000_000n);
  assert.equal(await inf.waitForResourceVersion(far, 200), false);
  await factory.stop();
});

test('the informer reports failure when the server goes away, and does not crash', async () => {
  const own = await startControlPlane();
  const c = KubeClient.fromKubeconfigString(own.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
  const registry = new Registry();
  const factory = new InformerFactory(c, {
    logger: silentLogger(),
    metricsRegistry: registry,
    relistBackoff: { initialMs: 50, maxMs: 200 },
  });
  factories.push(factory);
  const inf = factory.informerFor(ConfigMaps, { namespace: 'default' });
  factory.start();
  await factory.waitForSync(undefined, 10_000);
  assert.equal(factory.healthy(), true);
  await own.stop();
  await eventually(() => !inf.healthy(), 'unhealthy after the server stopped');
  assert.equal(factory.healthy(), false);
  assert.ok((await registry.getSingleMetric('peerpods_reflector_watch_errors_total')!.get()).values.length > 0);
  assert.match(String(factory.status()[0]?.lastError), /ECONNREFUSED|socket|ECONNRESET/);
  await factory.stop();
  c.close();
});
