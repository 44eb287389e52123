import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../../../src/runtime/queue/index.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles per failure from 5 ms and caps at 1000 s', () => {
    const rl = new ItemExponentialFailureRateLimiter();
    assert.deepEqual(
      [1, 2, 3, 4].map(() => rl.when('a')),
      [5, 10, 20, 40],
    );
    assert.equal(rl.numRequeues('a'), 4);
    for (let i = 0; i < 30; i++) rl.when('a');
    assert.equal(rl.when('a'), 1_000_000);
    assert.equal(rl.when('b'), 5, 'keys back off independently');
  });

  it('forget resets the key', () => {
    const rl = new ItemExponentialFailureRateLimiter(1, 100);
    rl.when('a');
    rl.when('a');
    rl.forget('a');
    assert.equal(rl.numRequeues('a'), 0);
    assert.equal(rl.when('a'), 1);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces reservations at 1/qps and refills over time', async () => {
    const clock = new FakeClock();
    const rl = new BucketRateLimiter(10, 100, clock);
    for (let i = 0; i < 100; i++) assert.equal(rl.when(`k${i}`), 0);
    assert.equal(rl.when('x'), 100);
    assert.equal(rl.when('y'), 200);
    await clock.advance(10_000); // refills the 2 owed tokens and then some
    assert.equal(rl.when('z'), 0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is the max of the per-key backoff and the shared bucket', () => {
    const clock = new FakeClock();
    const rl = defaultControllerRateLimiter({ clock, qps: 1, burst: 2 });
    assert.equal(rl.when('a'), 5); // per-key wins
    assert.equal(rl.when('b'), 5);
    assert.equal(rl.when('c'), 1000); // bucket empty: 1 qps wins
    rl.forget('a');
    assert.equal(rl.numRequeues('a'), 0);
  });

  it('MaxOf records the failure in every limiter', () => {
    const a = new ItemExponentialFailureRateLimiter(1, 1000);
    const b = new ItemExponentialFailureRateLimiter(3, 1000);
    const m = new MaxOfRateLimiter(a, b);
    assert.equal(m.when('k'), 3);
    assert.equal(m.when('k'), 6);
    assert.equal(a.numRequeues('k'), 2);
  });
});
