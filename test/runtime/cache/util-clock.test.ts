import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, realClock } from '../../../src/runtime/util/clock.ts';

test('FakeClock fires timers in due order, only when advanced', async () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push('b'), 20);
  clock.setTimeout(() => fired.push('a'), 10);
  const c = clock.setTimeout(() => fired.push('c'), 15);
  clock.clearTimeout(c);
  await clock.advance(9);
  assert.deepEqual(fired, []);
  await clock.advance(11);
  assert.deepEqual(fired, ['a', 'b']);
  assert.equal(clock.now(), 20);
  assert.equal(clock.pending(), 0);
});

test('FakeClock.sleep resolves on advance and rejects on abort', async () => {
  const clock = new FakeClock(0);
  let done = false;
  const p = clock.sleep(100).then(() => (done = true));
  await clock.advance(99);
  assert.equal(done, false);
  await clock.advance(1);
  await p;
  assert.equal(done, true);

  const ac = new AbortController();
  const q = clock.sleep(100, ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(q, /stop/);
  assert.equal(clock.pending(), 0);
});

test('FakeClock runs continuations between timers (chained sleeps in one advance)', async () => {
  const clock = new FakeClock(0);
  const times: number[] = [];
  void (async () => {
    for (let i = 0; i < 3; i++) {
      await clock.sleep(10);
      times.push(clock.now());
    }
  })();
  await clock.advance(100);
  assert.deepEqual(times, [10, 20, 30]);
});

test('realClock.sleep waits and honours abort', async () => {
  const t0 = Date.now();
  await realClock.sleep(20);
  assert.ok(Date.now() - t0 >= 15);
  const ac = new AbortController();
  const p = realClock.sleep(10_000, ac.signal);
  ac.abort(new Error('x'));
  await assert.rejects(p, /x/);
});
