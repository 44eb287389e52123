import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Controller, TerminalError } from '../../../src/runtime/controller/index.ts';
import type { Request, ReconcileContext, ReconcileResult } from '../../../src/runtime/controller/index.ts';
import { requestForObject } from '../../../src/runtime/controller/handlers.ts';
import { StopRequest } from '../../../src/runtime/manager/runnable.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';
import { advanceUntil, deferred, tick, waitFor } from '../../helpers/wait.ts';
import { FakeInformer, obj } from './fake-informer.ts';

type Fn = (req: Request, ctx: ReconcileContext) => Promise<ReconcileResult | void>;

function setup(fn: Fn, opts: { workers?: number; registry?: Registry } = {}) {
  const clock = new FakeClock();
  const informer = new FakeInformer();
  const c = new Controller({
    name: 'test',
    reconciler: { reconcile: fn },
    clock,
    maxConcurrentReconciles: opts.workers ?? 1,
    ...(opts.registry ? { metricsRegistry: opts.registry } : {}),
  });
  c.watch({ informer, map: requestForObject, predicates: [] });
  const stop = new AbortController();
  const running = c.start(stop.signal);
  return { clock, informer, c, stop, running };
}

async function metric(reg: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = (await reg.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
}

describe('Controller', () => {
  it('reconciles each key, with the request, a logger and a reconcileId', async () => {
    const seen: Array<{ req: Request; id: string }> = [];
    const { informer, stop, running } = setup(async (req, ctx) => {
      seen.push({ req, id: ctx.reconcileId });
    });
    informer.add(obj('a'));
    informer.add(obj('b', {}, null));
    await waitFor(() => seen.length === 2, 'two reconciles');
    assert.deepEqual(
      seen.map((s) => s.req),
      [{ namespace: 'default', name: 'a' }, { name: 'b' }],
    );
    assert.notEqual(seen[0].id, seen[1].id);
    stop.abort();
    await running;
  });

  it('runs up to maxConcurrentReconciles at once but never the same key twice', async () => {
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    let overlap = false;
    let calls = 0;
    const { informer, stop, running } = setup(
      async (req) => {
        calls++;
        if (activeKeys.has(req.name)) overlap = true;
        activeKeys.add(req.name);
        maxActive = Math.max(maxActive, ++active);
        await tick();
        await tick();
        active--;
        activeKeys.delete(req.name);
      },
      { workers: 3 },
    );
    for (let round = 0; round < 5; round++) {
      for (const n of ['a', 'b', 'c', 'd', 'e']) informer.update(obj(n, { resourceVersion: `${round + 2}` }));
      await tick();
    }
    await waitFor(() => active === 0 && calls >= 5, 'work to settle');
    assert.equal(overlap, false);
    assert.equal(maxActive, 3);
    stop.abort();
    await running;
  });

  it('retries a failing key with exponential backoff, then resets after success', async () => {
    const times: number[] = [];
    let failures = 3;
    const { clock, informer, stop, running } = setup(async () => {
      times.push(clock.now());
      if (failures-- > 0) throw new Error('boom');
    });
    informer.add(obj('a'));
    await advanceUntil(clock, () => times.length === 4, 'four attempts');
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.deepEqual(gaps, [5, 10, 20]);
    stop.abort();
    await running;
  });

  it('does not retry a TerminalError and counts it', async () => {
    const registry = new Registry();
    let calls = 0;
    const { clock, informer, stop, running } = setup(
      async () => {
        calls++;
        throw new TerminalError('bad spec');
      },
      { registry },
    );
    informer.add(obj('a'));
    await waitFor(() => calls === 1, 'first attempt');
    await clock.advance(60_000);
    await tick();
    assert.equal(calls, 1);
    assert.equal(
      await metric(registry, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'test' }),
      1,
    );
    assert.equal(await metric(registry, 'controller_runtime_reconcile_errors_total', { controller: 'test' }), 1);
    assert.equal(
      await metric(registry, 'controller_runtime_reconcile_total', { controller: 'test', result: 'error' }),
      1,
    );
    stop.abort();
    await running;
  });

  it('honours requeueAfter', async () => {
    const times: number[] = [];
    const { clock, informer, stop, running } = setup(async () => {
      times.push(clock.now());
      return { requeueAfter: 30_000 };
    });
    informer.add(obj('a'));
    await advanceUntil(clock, () => times.length === 3, 'three reconciles', 100_000, 1000);
    assert.deepEqual([times[1] - times[0], times[2] - times[1]], [30_000, 30_000]);
    stop.abort();
    await running;
  });

  it('serves a real change before a backlog of initial-list keys', async () => {
    const order: string[] = [];
    const gate = deferred();
    const { informer, stop, running } = setup(async (req) => {
      order.push(req.name);
      if (req.name === 'first') await gate.promise;
    });
    informer.add(obj('first'));
    await waitFor(() => order.length === 1, 'first reconcile');
    for (let i = 0; i < 20; i++) informer.add(obj(`listed-${i}`), true);
    informer.update(obj('listed-19', { resourceVersion: '2' }));
    informer.add(obj('changed'));
    gate.resolve();
    await waitFor(() => order.length === 22, 'everything reconciled');
    assert.deepEqual(order.slice(1, 3), ['listed-19', 'changed']);
    stop.abort();
    await running;
  });

  it('treats a resync (same resourceVersion) as low priority', async () => {
    const order: string[] = [];
    const gate = deferred();
    const { informer, stop, running } = setup(async (req) => {
      order.push(req.name);
      if (req.name === 'first') await gate.promise;
    });
    informer.add(obj('first'));
    informer.add(obj('resynced'));
    await waitFor(() => order.length === 1, 'first reconcile');
    informer.update(obj('resynced')); // already queued normal; stays
    informer.store.set('default/other', obj('other'));
    informer.update(obj('other')); // same resourceVersion as the stored copy: a resync
    informer.add(obj('real'));
    gate.resolve();
    await waitFor(() => order.length === 4, 'all reconciled');
    assert.deepEqual(order, ['first', 'resynced', 'real', 'other']);
    stop.abort();
    await running;
  });

  it('waits for in-flight reconciles on stop, and aborts their signal after the grace period', async () => {
    const release = deferred();
    let finished = false;
    let abortedDuring = false;
    const { clock, informer, stop, running } = setup(async (req, ctx) => {
      if (req.name === 'slow') {
        await release.promise;
        finished = true;
      } else {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        abortedDuring = true;
      }
    });
    informer.add(obj('slow'));
    await tick();
    let stopped = false;
    stop.abort(new StopRequest('shutdown', 30_000));
    void running.then(() => (stopped = true));
    await clock.advance(10_000);
    assert.equal(stopped, false, 'still waiting for the in-flight reconcile');
    release.resolve();
    await waitFor(() => stopped, 'controller stopped');
    assert.equal(finished, true);

    // A reconcile that ignores shutdown: after the grace period its signal aborts.
    const second = setup(async (req, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      abortedDuring = true;
    });
    second.informer.add(obj('stuck'));
    await tick();
    second.stop.abort(new StopRequest('leadership-lost', 2_000));
    await second.clock.advance(2_000);
    await second.running;
    await waitFor(() => abortedDuring, 'reconcile signal aborted');
  });

  it('can be started again after a stop (re-election), replaying the informer store', async () => {
    const seen: string[] = [];
    const { informer, c, stop, running } = setup(async (req) => {
      seen.push(req.name);
    });
    informer.add(obj('a'));
    await waitFor(() => seen.length === 1, 'first run');
    stop.abort();
    await running;
    informer.add(obj('b')); // while stopped: dropped, found again by the replay
    const stop2 = new AbortController();
    const running2 = c.start(stop2.signal);
    await waitFor(() => seen.length === 3, 'second run replays a and b');
    assert.deepEqual(seen.slice(1).sort(), ['a', 'b']);
    stop2.abort();
    await running2;
  });

  it('a restarted controller waits for a reconcile that outlived the previous run', async () => {
    const release = deferred();
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    const { clock, informer, c, stop, running } = setup(async () => {
      calls++;
      maxActive = Math.max(maxActive, ++active);
      if (calls === 1) await release.promise; // ignores its signal on purpose
      active--;
    });
    informer.add(obj('a'));
    await waitFor(() => calls === 1, 'first reconcile');
    stop.abort(new StopRequest('leadership-lost', 1000));
    await clock.advance(1000);
    await running; // returned after the grace period although the reconcile still runs
    const stop2 = new AbortController();
    const running2 = c.start(stop2.signal);
    await tick();
    await tick();
    assert.equal(calls, 1, 'the new run has not started the same key while the old call runs');
    release.resolve();
    await waitFor(() => calls === 2, 'the key reconciled by the new run');
    assert.equal(maxActive, 1);
    stop2.abort();
    await running2;
  });

  it('fails start when caches do not sync in time', async () => {
    const clock = new FakeClock();
    const informer = new FakeInformer();
    informer.synced = false;
    const c = new Controller({ name: 'x', reconciler: { reconcile: async () => {} }, clock, cacheSyncTimeoutMs: 1000 });
    c.watch({ informer, map: requestForObject, predicates: [] });
    const failed = assert.rejects(c.start(new AbortController().signal), /did not sync within 1000 ms/);
    await clock.advance(1000);
    await failed;
  });

  it('reports active workers and max concurrency', async () => {
    const registry = new Registry();
    const gate = deferred();
    const { informer, stop, running } = setup(() => gate.promise, { registry, workers: 4 });
    informer.add(obj('a'));
    await waitFor(
      async () => (await metric(registry, 'controller_runtime_active_workers', { controller: 'test' })) === 1,
      'one active worker',
    );
    assert.equal(await metric(registry, 'controller_runtime_max_concurrent_reconciles', { controller: 'test' }), 4);
    gate.resolve();
    await waitFor(
      async () =>
        (await metric(registry, 'controller_runtime_reconcile_total', { controller: 'test', result: 'success' })) === 1,
      'success counted',
    );
    stop.abort();
    await running;
  });
});
