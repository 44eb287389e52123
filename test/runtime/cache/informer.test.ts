// Reflector + informer behaviour against a fake list/watch with a fake clock: no network, no sleeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock, settle } from '../../../src/runtime/util/clock.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { SharedInformer } from '../../../src/runtime/cache/informer.ts';
import type { EventHandler } from '../../../src/runtime/cache/informer.ts';
import type { InformerOptions } from '../../../src/runtime/cache/options.ts';
import { ConfigMaps } from '../../../src/runtime/client/resources.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { ApiError } from '../../../src/runtime/client/errors.ts';
import { FakeListerWatcher, obj } from './fake-list-watch.ts';

interface Rec {
  events: string[];
  handler: EventHandler<KubeObject>;
}

function recorder(): Rec {
  const events: string[] = [];
  return {
    events,
    handler: {
      onAdd: (o, initial) => events.push(`add:${o.metadata.name}${initial ? ':initial' : ''}`),
      onUpdate: (a, b) =>
        events.push(`update:${b.metadata.name}:${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
      onDelete: (o) => events.push(`delete:${o.metadata.name}`),
    },
  };
}

function setup(opts: InformerOptions = {}) {
  const clock = new FakeClock(0);
  const registry = new Registry();
  const lw = new FakeListerWatcher();
  const inf = new SharedInformer<KubeObject>(ConfigMaps, {}, lw, {
    clock,
    logger: silentLogger(),
    metricsRegistry: registry,
    random: () => 0,
    ...opts,
  });
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
    const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
    return (m?.values ?? [])
      .filter((v) => Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val))
      .reduce((a, v) => a + v.value, 0);
  };
  return { clock, lw, inf, metric };
}

/** Lets the informer's background loop run; time does not move. */
async function until(cond: () => boolean, what: string, clock?: FakeClock, stepMs = 0): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    if (clock && stepMs > 0) await clock.advance(stepMs);
    else await settle();
  }
  assert.fail(`condition never held: ${what}`);
}

test('initial list is paged, stored and delivered as initial adds; then the watch starts from its RV', async () => {
  const { lw, inf, metric } = setup({ pageSize: 2 });
  for (const n of ['a', 'b', 'c', 'd', 'e']) lw.put(obj(n));
  const rec = recorder();
  inf.addHandler(rec.handler);
  assert.equal(inf.healthy(), false);
  inf.start();
  await until(() => inf.hasSynced(), 'synced');
  assert.equal(lw.listCalls.length, 3, 'three pages of 2');
  assert.deepEqual(
    lw.listCalls.map((c) => c.limit),
    [2, 2, 2],
  );
  assert.equal(inf.list().length, 5);
  assert.deepEqual(rec.events, ['add:a:initial', 'add:b:initial', 'add:c:initial', 'add:d:initial', 'add:e:initial']);
  assert.equal(inf.lastResourceVersion(), String(lw.rv));
  await until(() => lw.openWatches() === 1, 'watch open');
  const call = lw.watchCalls[0]!;
  assert.equal(call.resourceVersion, String(lw.rv));
  assert.equal(call.allowWatchBookmarks, true);
  assert.equal(call.timeoutSeconds, 300, 'random() = 0 picks the low end of [300, 600]');
  assert.equal(inf.healthy(), true);
  assert.equal(await metric('peerpods_reflector_lists_total'), 1);
  assert.equal(await metric('peerpods_informer_synced'), 1);
  await inf.stop();
});

test('watch events update the store and handlers; bookmarks advance the RV', async () => {
  const { lw, inf } = setup();
  lw.put(obj('a'));
  const rec = recorder();
  inf.addHandler(rec.handler);
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  const a2 = lw.put({ ...obj('a'), data: { x: '1' } });
  lw.put(obj('b'));
  lw.remove('a');
  await until(() => rec.events.length === 4, 'events');
  assert.deepEqual(rec.events, ['add:a:initial', `update:a:101->${a2.metadata.resourceVersion}`, 'add:b', 'delete:a']);
  assert.equal(inf.get('default', 'a'), undefined);
  assert.equal(inf.get('default', 'b')?.metadata.name, 'b');
  lw.bookmark();
  await until(() => inf.lastResourceVersion() === String(lw.rv), 'bookmark RV');
  await inf.stop();
});

test('a watch that ends is resumed from the last seen RV without a relist and without losing changes', async () => {
  const { lw, inf, metric } = setup();
  lw.put(obj('a'));
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  lw.put(obj('b'));
  await until(() => inf.get('default', 'b') !== undefined, 'b seen');
  const rvAfterB = inf.lastResourceVersion();
  // Connection reset mid-stream, then a change happens while we are disconnected.
  lw.cutWatches(new Error('ECONNRESET'));
  lw.put(obj('c'));
  await until(() => lw.watchCalls.length === 2 && lw.openWatches() === 1, 'reconnected');
  assert.equal(lw.watchCalls[1]!.resourceVersion, rvAfterB);
  await until(() => inf.get('default', 'c') !== undefined, 'c seen after reconnect');
  assert.equal(lw.listCalls.length, 1, 'no relist');
  assert.equal(await metric('peerpods_reflector_watch_restarts_total', { reason: 'stream_error' }), 1);
  // A normal close (server-side timeout) also resumes.
  lw.cutWatches();
  lw.put(obj('d'));
  await until(() => inf.get('default', 'd') !== undefined, 'd seen');
  assert.equal(await metric('peerpods_reflector_watch_restarts_total', { reason: 'closed' }), 1);
  assert.equal(lw.listCalls.length, 1);
  await inf.stop();
});

test('410 Gone relists after a jittered backoff and delivers the differences', async () => {
  const { lw, inf, clock, metric } = setup({ random: () => 0.5 });
  lw.put(obj('keep'));
  const before = lw.put(obj('change'));
  lw.put(obj('gone'));
  const rec = recorder();
  inf.addHandler(rec.handler);
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  rec.events.length = 0;
  // Changes we never see as events, then history is compacted and the watch is cut.
  const changed = lw.putSilently({ ...obj('change'), data: { v: '2' } });
  lw.remove('gone', 'default', true);
  lw.putSilently(obj('new'));
  lw.compact();
  await clock.advance(5_000); // a watch that lived a while: reconnecting at once is right
  lw.cutWatches();
  await until(() => lw.watchCalls.length === 2, 'second watch attempt');
  await until(() => lw.openWatches() === 0, 'ERROR 410 consumed');
  // Backoff: initial 800 ms + 0.5 × 800 jitter = 1200 ms before the relist.
  await clock.advance(1199);
  assert.equal(lw.listCalls.length, 1, 'not yet relisted');
  await clock.advance(1);
  await until(() => lw.listCalls.length === 2 && lw.openWatches() === 1, 'relisted and watching');
  assert.deepEqual(
    rec.events.sort(),
    [
      'add:new',
      'delete:gone',
      `update:change:${before.metadata.resourceVersion}->${changed.metadata.resourceVersion}`,
    ].sort(),
  );
  assert.deepEqual(
    inf
      .list()
      .map((o) => o.metadata.name)
      .sort(),
    ['change', 'keep', 'new'],
  );
  assert.equal(await metric('peerpods_reflector_relists_total', { reason: 'gone' }), 1);
  assert.equal(await metric('peerpods_reflector_watch_restarts_total', { reason: 'gone' }), 1);
  assert.equal(inf.healthy(), true);
  await inf.stop();
});

test('the watchdog reconnects a watch that went silent', async () => {
  const { lw, inf, clock, metric } = setup({ watchdogMs: 70_000 });
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  await clock.advance(69_000);
  lw.bookmark(); // signs of life reset the watchdog
  await settle();
  await clock.advance(69_000);
  assert.equal(lw.watchCalls.length, 1);
  await clock.advance(1_000);
  await until(() => lw.watchCalls.length === 2 && lw.openWatches() === 1, 'reconnected');
  assert.equal(lw.watchCalls[1]!.resourceVersion, String(lw.rv), 'resumes from the bookmark');
  assert.equal(await metric('peerpods_reflector_watch_restarts_total', { reason: 'watchdog' }), 1);
  await inf.stop();
});

test('list failures mark the informer unhealthy and retry with growing backoff until they succeed', async () => {
  const { lw, inf, clock, metric } = setup();
  lw.put(obj('a'));
  lw.listErrors = [new Error('connection refused'), new ApiError(500, 'InternalError', 'boom'), new Error('refused')];
  inf.start();
  await until(() => lw.listCalls.length === 1, 'first attempt');
  assert.equal(inf.healthy(), false);
  assert.equal(inf.hasSynced(), false);
  await clock.advance(799);
  assert.equal(lw.listCalls.length, 1);
  await clock.advance(1);
  await until(() => lw.listCalls.length === 2, 'second attempt after 800 ms');
  await clock.advance(1599);
  assert.equal(lw.listCalls.length, 2);
  await clock.advance(1);
  await until(() => lw.listCalls.length === 3, 'third attempt after 1600 ms');
  await clock.advance(3200);
  await until(() => inf.hasSynced(), 'synced');
  assert.equal(inf.healthy(), true);
  assert.equal(await metric('peerpods_reflector_list_errors_total'), 3);
  assert.match(String((inf.lastError() as Error).message), /refused/);
  await inf.stop();
});

test('a watch that cannot be opened is retried from the last RV; other refusals relist', async () => {
  const { lw, inf, clock, metric } = setup();
  lw.put(obj('a'));
  lw.watchErrors = [new Error('ECONNREFUSED')];
  inf.start();
  await until(() => lw.watchCalls.length === 1, 'first watch');
  await until(() => !inf.healthy(), 'unhealthy');
  await clock.advance(800);
  await until(() => lw.openWatches() === 1, 'watch reopened');
  assert.equal(inf.healthy(), true);
  assert.equal(lw.listCalls.length, 1, 'network errors do not relist');
  assert.equal(await metric('peerpods_reflector_watch_errors_total'), 1);
  lw.watchErrors = [new ApiError(403, 'Forbidden', 'no')];
  await clock.advance(5_000);
  lw.cutWatches();
  await until(() => lw.watchCalls.length === 3, 'third watch attempt');
  await clock.advance(5_000);
  await until(() => lw.listCalls.length === 2 && lw.openWatches() === 1, 'relisted after 403');
  await inf.stop();
});

test('malformed watch objects are skipped and counted; the watch continues', async () => {
  const { lw, inf, metric } = setup();
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  lw.raw({ type: 'ADDED', object: { metadata: {} } as KubeObject });
  lw.raw({ type: 'MODIFIED', object: { nometa: true } as unknown as KubeObject });
  lw.watchCalls[0]!.onMalformed('{not json', new Error('invalid JSON'));
  lw.put(obj('ok'));
  await until(() => inf.get('default', 'ok') !== undefined, 'good event after bad ones');
  assert.equal(await metric('peerpods_reflector_malformed_events_total'), 3);
  assert.equal(lw.watchCalls.length, 1, 'same watch');
  await inf.stop();
});

test('an expired continue token falls back to one unpaged list', async () => {
  const { lw, inf } = setup({ pageSize: 2 });
  for (const n of ['a', 'b', 'c', 'd']) lw.put(obj(n));
  lw.expireContinue = true;
  inf.start();
  await until(() => inf.hasSynced(), 'synced');
  assert.deepEqual(
    lw.listCalls.map((c) => c.limit),
    [2, 2, undefined],
  );
  assert.equal(inf.list().length, 4);
  await inf.stop();
});

test('late handlers get synthetic initial adds; a throwing handler does not affect others', async () => {
  const { lw, inf, metric } = setup();
  lw.put(obj('a'));
  lw.put(obj('b'));
  inf.addHandler({
    onAdd: () => {
      throw new Error('handler bug');
    },
  });
  inf.start();
  await until(() => inf.hasSynced(), 'synced');
  const rec = recorder();
  inf.addHandler(rec.handler);
  assert.deepEqual(rec.events.sort(), ['add:a:initial', 'add:b:initial']);
  lw.put(obj('c'));
  await until(() => rec.events.includes('add:c'), 'c');
  assert.equal(await metric('peerpods_informer_handler_errors_total'), 3);
  await inf.stop();
});

test('waitForResourceVersion resolves when the cache catches up, false on timeout', async () => {
  const { lw, inf, clock } = setup({ readYourWritesTimeoutMs: 5_000 });
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  assert.equal(await inf.waitForResourceVersion(inf.lastResourceVersion()), true);
  const target = String(lw.rv + 1);
  const p = inf.waitForResourceVersion(target);
  let settled: boolean | undefined;
  void p.then((v) => (settled = v));
  await settle();
  assert.equal(settled, undefined);
  lw.put(obj('x'));
  assert.equal(await p, true);
  // A bookmark past the target also counts (the object may be out of scope).
  const later = String(lw.rv + 1);
  const q = inf.waitForResourceVersion(later);
  lw.bookmark();
  assert.equal(await q, true);
  const never = inf.waitForResourceVersion(String(lw.rv + 50));
  await clock.advance(5_000);
  assert.equal(await never, false);
  await inf.stop();
});

test('managedFields are stripped by default; transform null keeps them; freezeObjects freezes', async () => {
  const withMf = { ...obj('a'), metadata: { ...obj('a').metadata, managedFields: [{ manager: 'x' }] } };
  const s1 = setup();
  s1.lw.put(withMf);
  s1.inf.start();
  await until(() => s1.inf.hasSynced(), 'synced');
  assert.equal(s1.inf.get('default', 'a')?.metadata.managedFields, undefined);
  await s1.inf.stop();

  const s2 = setup({ transform: null, freezeObjects: true });
  s2.lw.put(withMf);
  s2.inf.start();
  await until(() => s2.inf.hasSynced(), 'synced');
  const cached = s2.inf.get('default', 'a')!;
  assert.equal(cached.metadata.managedFields?.length, 1);
  assert.throws(() => {
    cached.metadata.name = 'mutated';
  }, TypeError);
  await s2.inf.stop();
});

test('waitForSync times out with the last error, and stop() ends the loop for good', async () => {
  const { lw, inf, clock } = setup();
  lw.listErrors = Array.from({ length: 100 }, () => new Error('apiserver down'));
  inf.start();
  const p = inf.waitForSync(undefined, 10_000);
  const assertion = assert.rejects(p, /did not sync within 10000 ms \(last error: apiserver down\)/);
  await clock.advance(10_000);
  await assertion;
  const calls = lw.listCalls.length;
  await inf.stop();
  await clock.advance(120_000);
  assert.equal(lw.listCalls.length, calls, 'no more calls after stop');
  assert.throws(() => inf.start(), /cannot be restarted/);
});

test('a watch that keeps ending instantly backs off instead of spinning', async () => {
  const { lw, inf, clock } = setup();
  inf.start();
  await until(() => lw.openWatches() === 1, 'watch open');
  // A watch that lived a while and closes is reopened at once...
  await clock.advance(5_000);
  lw.cutWatches();
  await until(() => lw.watchCalls.length === 2, 'second watch');
  // ...but one that closes instantly with no events waits for the backoff.
  await until(() => lw.openWatches() === 1, 'second watch open');
  lw.cutWatches();
  await settle();
  await settle();
  const before = lw.watchCalls.length;
  assert.equal(before, 2, 'waits for backoff before a third attempt');
  await clock.advance(800);
  await until(() => lw.watchCalls.length === 3, 'third watch after backoff');
  await inf.stop();
});
