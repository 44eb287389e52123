import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue, ItemExponentialFailureRateLimiter } from '../../../src/runtime/queue/index.ts';
import { FakeClock, flushMicrotasks } from '../../../src/runtime/util/clock.ts';

function drainAll(q: WorkQueue): string[] {
  const out: string[] = [];
  for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
    out.push(k);
    q.done(k);
  }
  return out;
}

describe('WorkQueue basics', () => {
  it('deduplicates keys and hands them out in FIFO order', () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('c');
    q.add('b');
    assert.equal(q.len(), 3);
    assert.deepEqual(drainAll(q), ['a', 'b', 'c']);
  });

  it('never hands out a key that is being processed; a re-add runs once after done', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    const first = await q.get();
    assert.equal(first, 'a');
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'dirty while processing, not ready');
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await flushMicrotasks();
    assert.equal(second, undefined, 'a second worker must not get the same key');
    q.done('a');
    await flushMicrotasks();
    assert.equal(second, 'a');
    q.done('a');
    assert.equal(q.len(), 0, 'the two re-adds collapsed into one run');
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    const p = q.get();
    q.add('x');
    assert.equal(await p, 'x');
  });
});

describe('WorkQueue priority lanes', () => {
  it('serves real changes before initial-list items', () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    for (let i = 0; i < 5; i++) q.add(`list-${i}`, { priority: 'low' });
    q.add('change');
    assert.deepEqual(drainAll(q), ['change', 'list-0', 'list-1', 'list-2', 'list-3', 'list-4']);
  });

  it('promotes a listed key that then really changes, and never demotes', () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a', { priority: 'low' });
    q.add('b', { priority: 'low' });
    q.add('b');
    q.add('c');
    q.add('c', { priority: 'low' });
    assert.deepEqual(drainAll(q), ['b', 'c', 'a']);
  });

  it('ages low items so a steady stream of changes cannot starve them', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, lowPriorityAgingMs: 1000 });
    for (let i = 0; i < 3; i++) q.add(`list-${i}`, { priority: 'low' });
    q.add('n0');
    assert.equal(q.tryGet(), 'n0', 'fresh low items wait behind changes');
    q.done('n0');
    await clock.advance(1000);
    for (let i = 1; i <= 3; i++) q.add(`n${i}`);
    assert.deepEqual(drainAll(q), ['list-0', 'n1', 'list-1', 'n2', 'list-2', 'n3']);
  });

  it('re-queues a key added while processing in the highest lane it was added with', () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    assert.equal(q.tryGet(), 'a');
    assert.equal(q.tryGet(), 'b');
    q.add('a', { priority: 'low' });
    q.add('b', { priority: 'low' });
    q.add('b');
    q.add('z', { priority: 'low' });
    q.done('a');
    q.done('b');
    assert.deepEqual(drainAll(q), ['b', 'z', 'a']);
  });
});

describe('WorkQueue delays and backoff', () => {
  it('addAfter makes a key ready only when its time comes; the earliest time wins', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 1000);
    q.addAfter('b', 500);
    q.addAfter('a', 200);
    q.addAfter('b', 900);
    assert.equal(q.len(), 0);
    await clock.advance(199);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.deepEqual(drainAll(q), ['a']);
    await clock.advance(300);
    assert.deepEqual(drainAll(q), ['b']);
    await clock.advance(10_000);
    assert.equal(q.len(), 0, 'superseded times do not fire a second time');
    assert.equal(clock.pending(), 0);
  });

  it('addRateLimited backs off exponentially per key and forget resets it', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    const readyAfter = async (key: string): Promise<number> => {
      const start = clock.now();
      q.addRateLimited(key);
      while (q.len() === 0) await clock.advance(1);
      assert.equal(q.tryGet(), key);
      q.done(key);
      return clock.now() - start;
    };
    assert.deepEqual([await readyAfter('k'), await readyAfter('k'), await readyAfter('k')], [5, 10, 20]);
    assert.equal(q.numRequeues('k'), 3);
    q.forget('k');
    assert.equal(await readyAfter('k'), 5);
  });

  it('throttles a failure storm across keys with the shared token bucket', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    for (let i = 0; i < 102; i++) q.addRateLimited(`k${i}`);
    await clock.advance(5);
    assert.equal(q.len(), 100, 'the burst of 100 only waits for the 5 ms per-key delay');
    await clock.advance(94);
    assert.equal(q.len(), 100);
    await clock.advance(1);
    assert.equal(q.len(), 101, 'the 101st token comes 100 ms later (10/s)');
    await clock.advance(100);
    assert.equal(q.len(), 102);
  });

  it('a direct add makes a delayed key ready at once', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 60_000);
    q.add('a');
    assert.deepEqual(drainAll(q), ['a']);
    await clock.advance(60_000);
    assert.deepEqual(drainAll(q), ['a'], 'the requeueAfter still fires (level-triggered: harmless)');
  });

  it('uses a custom rate limiter', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(1000, 4000) });
    q.addRateLimited('a');
    await clock.advance(999);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1);
  });
});

describe('WorkQueue shutdown', () => {
  it('wakes waiting workers, ignores new adds and drops delayed keys', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    const waiting = q.get();
    q.addAfter('later', 100);
    q.shutDown();
    assert.equal(await waiting, undefined);
    q.add('x');
    assert.equal(await q.get(), undefined);
    assert.equal(clock.pending(), 0);
  });

  it('drain waits for in-flight keys to be done', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    const k = await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then((ok) => (drained = ok));
    await flushMicrotasks();
    assert.equal(drained, false);
    assert.equal(await q.get(), undefined, 'queued keys are dropped by default');
    q.done(k as string);
    await p;
    assert.equal(drained, true);
  });

  it('drainQueued hands out what was queued, including a key re-added while processing', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    assert.equal(await q.get(), 'a');
    q.add('a');
    const drained = q.shutDownWithDrain(undefined, { drainQueued: true });
    assert.equal(await q.get(), 'b');
    q.done('b');
    const next = q.get(); // nothing ready, but 'a' is in flight and dirty: wait
    q.done('a');
    assert.equal(await next, 'a');
    q.done('a');
    assert.equal(await drained, true);
    assert.equal(await q.get(), undefined);
  });

  it('drain gives up after its timeout', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.add('stuck');
    await q.get();
    let result: boolean | undefined;
    void q.shutDownWithDrain(30_000).then((r) => (result = r));
    await clock.advance(29_999);
    assert.equal(result, undefined);
    await clock.advance(1);
    assert.equal(result, false);
  });
});
