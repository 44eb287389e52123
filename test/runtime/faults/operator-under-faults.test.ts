// The operator runtime against an API server that misbehaves on purpose (ControlPlane.faults):
// each fault a real cluster shows now and then — a watch that ends, an expired resourceVersion,
// throttling, a failed write, a broken connection — is injected deterministically, and the
// reflector, the client and the controller must converge anyway. Every fault asserts it fired.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import {
  ConfigMaps,
  ControllerBuilder,
  InformerFactory,
  Manager,
  Namespaces,
  silentLogger,
  type KubeClient,
  type KubeObject,
} from '../../../src/runtime/index.ts';
import { startTestCluster, type TestCluster } from '../../helpers/runtime-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

type ConfigMap = KubeObject & { data?: Record<string, string> };

describe('the operator runtime under injected faults', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  const stops: Array<() => Promise<void>> = [];
  let nsCount = 0;

  before(async () => {
    cluster = await startTestCluster();
    client = cluster.client();
  });
  after(async () => {
    cluster?.cp.faults.clear();
    for (const stop of stops.reverse()) await stop();
    await cluster?.stop();
  });

  async function namespace(): Promise<string> {
    const name = `faults-${++nsCount}`;
    await client.create(Namespaces, { metadata: { name } });
    return name;
  }

  /** An informer over one namespace's ConfigMaps, with a metric reader. */
  function informer(ns: string) {
    const registry = new Registry();
    const factory = new InformerFactory(client, { logger: silentLogger(), metricsRegistry: registry });
    stops.push(() => factory.stop());
    const inf = factory.informerFor(ConfigMaps, { namespace: ns });
    const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
      const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
      return (m?.values ?? [])
        .filter((v) => Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val))
        .reduce((a, v) => a + v.value, 0);
    };
    return { factory, inf, metric };
  }

  /** Whether the cache holds exactly the server's objects at the server's versions. */
  async function converged(ns: string, cached: () => KubeObject[]): Promise<boolean> {
    const server = await client.listAll<KubeObject>(ConfigMaps, { namespace: ns });
    const want = new Map(server.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    const have = new Map(cached().map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    return want.size === have.size && [...want].every(([k, v]) => have.get(k) === v);
  }

  it('watches dropped at once or after an event are re-established and the informer converges', async () => {
    const ns = await namespace();
    const faults = cluster.cp.faults;
    const atOnce = faults.inject({
      match: { verb: 'watch', resource: 'configmaps', namespace: ns },
      action: { type: 'dropWatch' },
      times: 2,
    });
    const afterOne = faults.inject({
      match: { verb: 'watch', resource: 'configmaps', namespace: ns },
      action: { type: 'dropWatch', afterEvents: 1 },
      times: 4,
    });
    const { factory, inf, metric } = informer(ns);
    factory.start();
    await factory.waitForSync(undefined, 20_000);
    for (let i = 0; i < 8; i++) await client.create(ConfigMaps, { metadata: { name: `cm-${i}`, namespace: ns } });
    await waitFor(() => converged(ns, () => inf.list()), 'the cache to equal the server', 30_000, 50);
    assert.equal(atOnce.hits, 2);
    assert.equal(afterOne.hits, 4);
    assert.ok((await metric('peerpods_reflector_watch_restarts_total')) >= 6);
    // Every dropped watch resumed from the last resourceVersion seen: nothing was relisted.
    assert.equal(await metric('peerpods_reflector_relists_total'), 0);
    // And it keeps watching once the faults are spent.
    await client.create(ConfigMaps, { metadata: { name: 'after', namespace: ns } });
    await waitFor(() => inf.get(ns, 'after') !== undefined, 'an event after the faults', 10_000, 20);
  });

  it('a 410 Expired on the watch makes the reflector relist, then watch on', async () => {
    const ns = await namespace();
    await client.create(ConfigMaps, { metadata: { name: 'before', namespace: ns } });
    const expired = cluster.cp.faults.inject({
      match: { verb: 'watch', resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 410 },
      times: 1,
    });
    const { factory, inf, metric } = informer(ns);
    factory.start();
    await factory.waitForSync(undefined, 20_000);
    await waitFor(async () => (await metric('peerpods_reflector_relists_total', { reason: 'gone' })) === 1, 'a relist');
    assert.equal(expired.hits, 1);
    await client.create(ConfigMaps, { metadata: { name: 'after', namespace: ns } });
    await waitFor(() => converged(ns, () => inf.list()), 'the cache to equal the server', 20_000, 50);
    assert.ok(inf.get(ns, 'before') && inf.get(ns, 'after'));
  });

  it('the client waits out a 429 Retry-After, as client-go does, for reads and writes', async () => {
    const ns = await namespace();
    await client.create(ConfigMaps, { metadata: { name: 'x', namespace: ns } });
    const throttled = cluster.cp.faults.inject({
      match: { verb: ['get', 'create'], resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 429, retryAfterSeconds: 1 },
      times: 2,
    });
    const t0 = Date.now();
    const got = await client.get<ConfigMap>(ConfigMaps, 'x', ns);
    assert.equal(got.metadata.name, 'x');
    assert.equal(throttled.hits, 2);
    // client-go's checkWait: the Retry-After seconds pass before each retry.
    assert.ok(Date.now() - t0 >= 2000, `answered after ${Date.now() - t0} ms`);

    const again = cluster.cp.faults.inject({
      match: { verb: 'create', resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 429, retryAfterSeconds: 1 },
      times: 1,
    });
    await client.create(ConfigMaps, { metadata: { name: 'y', namespace: ns } });
    assert.equal(again.hits, 1);
    assert.equal((await client.get<ConfigMap>(ConfigMaps, 'y', ns)).metadata.name, 'y');
    throttled.remove();
    again.remove();
  });

  it('a 5xx with Retry-After is retried as a 429 is (client-go checkWait); one without surfaces', async () => {
    const ns = await namespace();
    await client.create(ConfigMaps, { metadata: { name: 'x', namespace: ns } });
    const unavailable = cluster.cp.faults.inject({
      match: { verb: 'get', resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 503, retryAfterSeconds: 1 },
      times: 1,
    });
    assert.equal((await client.get<ConfigMap>(ConfigMaps, 'x', ns)).metadata.name, 'x');
    assert.equal(unavailable.hits, 1);
    const internal = cluster.cp.faults.inject({
      match: { verb: 'get', resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 500 },
      times: 1,
    });
    await assert.rejects(client.get(ConfigMaps, 'x', ns), (e: { code?: number }) => e.code === 500);
    assert.equal(internal.hits, 1);
  });

  /** A controller that stamps `data.stamped` on every ConfigMap of `ns`, through the client. */
  async function stamper(ns: string): Promise<{ registry: Registry; reconciles: () => number }> {
    const registry = new Registry();
    const manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });
    let reconciles = 0;
    new ControllerBuilder(manager, `stamper-${ns}`)
      .for(ConfigMaps, { scope: { namespace: ns } })
      .complete(async (req) => {
        reconciles++;
        const cm = manager.cache.get<ConfigMap>(ConfigMaps, req.name, req.namespace, { scope: { namespace: ns } });
        if (!cm || cm.data?.stamped === 'yes') return;
        // A failed write throws: the controller requeues the key with backoff.
        await client.update(ConfigMaps, { ...structuredClone(cm), data: { ...cm.data, stamped: 'yes' } });
      });
    const running = manager.start();
    stops.push(async () => {
      await manager.stop();
      await running;
    });
    await manager.elected();
    return { registry, reconciles: () => reconciles };
  }

  /** Read with gets: the faults below break lists and watches. */
  async function allStamped(ns: string, names: string[]): Promise<boolean> {
    const objects = await Promise.all(names.map((n) => client.get<ConfigMap>(ConfigMaps, n, ns)));
    return objects.every((o) => o.data?.stamped === 'yes');
  }

  it('500s on update make the controller requeue with backoff until it converges', async () => {
    const ns = await namespace();
    const failing = cluster.cp.faults.inject({
      match: { verb: 'update', resource: 'configmaps', namespace: ns },
      action: { type: 'status', code: 500 },
      times: 3,
    });
    const { registry, reconciles } = await stamper(ns);
    await client.create(ConfigMaps, { metadata: { name: 'stamp-me', namespace: ns } });
    await waitFor(() => allStamped(ns, ['stamp-me']), 'the stamp written after the failures', 30_000, 50);
    assert.equal(failing.hits, 3);
    assert.ok(reconciles() >= 4, `${reconciles()} reconciles`);
    const text = await registry.metrics();
    assert.match(text, new RegExp(`controller_runtime_reconcile_errors_total\\{controller="stamper-${ns}"\\} [3-9]`));
    assert.match(text, new RegExp(`workqueue_retries_total\\{name="stamper-${ns}"\\} [3-9]`));
  });

  it('connection resets on lists, watches and writes are survived', async () => {
    const ns = await namespace();
    const names = ['r-0', 'r-1', 'r-2'];
    for (const name of names) await client.create(ConfigMaps, { metadata: { name, namespace: ns } });
    const faults = cluster.cp.faults;
    const resets = [
      faults.inject({
        match: { verb: 'list', resource: 'configmaps', namespace: ns },
        action: { type: 'reset' },
        times: 2,
      }),
      faults.inject({
        match: { verb: 'watch', resource: 'configmaps', namespace: ns },
        action: { type: 'reset' },
        times: 2,
      }),
      faults.inject({
        match: { verb: 'update', resource: 'configmaps', namespace: ns },
        action: { type: 'reset' },
        times: 3,
      }),
    ];
    await stamper(ns);
    await waitFor(() => allStamped(ns, names), 'every ConfigMap stamped', 60_000, 100);
    assert.deepEqual(
      resets.map((r) => r.hits),
      [2, 2, 3],
    );
  });
});
