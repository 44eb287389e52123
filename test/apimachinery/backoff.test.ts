import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, ItemExponentialBackoff, exponentialDelay } from '../../src/apimachinery/backoff.ts';

/** A clock that moves only when told. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

test('Backoff doubles to the cap, jitters, and resets after a quiet period', () => {
  const clock = manualClock();
  const b = new Backoff({ initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, jitter: 1, clock, random: () => 0 });
  const seq = Array.from({ length: 8 }, () => b.next());
  assert.deepEqual(seq, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  clock.advance(119_999);
  assert.equal(b.next(), 30000);
  clock.advance(120_000);
  assert.equal(b.next(), 800);
  const j = new Backoff({ initialMs: 800, maxMs: 30_000, jitter: 1, clock, random: () => 0.5 });
  assert.equal(j.next(), 1200);
  assert.equal(j.next(), 2400);
  j.reset();
  assert.equal(j.next(), 1200);
});

test('exponentialDelay: initial · factorⁿ, capped; negative attempts count as the first', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((n) => exponentialDelay(n, 1000, 10_000)),
    [1000, 2000, 4000, 8000, 10_000],
  );
  assert.equal(exponentialDelay(-1, 1000, 10_000), 1000);
  assert.equal(exponentialDelay(2, 100, 10_000, 3), 900);
});

test('ItemExponentialBackoff: keys back off independently until forgotten', () => {
  const b = new ItemExponentialBackoff(500, 30_000);
  assert.deepEqual(
    Array.from({ length: 8 }, () => b.next('a')),
    [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000],
  );
  assert.equal(b.next('b'), 500);
  assert.equal(b.failures('a'), 8);
  b.forget('a');
  assert.equal(b.failures('a'), 0);
  assert.equal(b.next('a'), 500);
  // Thousands of failures stay at the cap (no Infinity or NaN), even with a zero base.
  const zero = new ItemExponentialBackoff(0, 1000);
  for (let i = 0; i < 2000; i++) zero.next('k');
  assert.equal(zero.next('k'), 0);
  const big = new ItemExponentialBackoff(5, 1000);
  for (let i = 0; i < 2000; i++) big.next('k');
  assert.equal(big.next('k'), 1000);
});
