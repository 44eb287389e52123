import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderElector } from '../../../src/runtime/manager/leader-election.ts';
import type { Lease } from '../../../src/runtime/manager/leader-election.ts';
import { formatMicroTime } from '../../../src/runtime/manager/index.ts';
import { FakeClock } from '../../../src/runtime/util/clock.ts';
import { advanceUntil } from '../../helpers/wait.ts';
import { FakeLeaseStore } from './fake-lease-client.ts';

// A candidate retries every retryPeriod (2 s) plus up to 120 % jitter, client-go's factor: at most 4.4 s.
// A standby sees the last renewal at most one retry late and the expiry at most one retry late.
const MAX_RETRY_MS = 2_000 * 2.2;

const opts = {
  leaseName: 'op',
  namespace: 'default',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

function candidate(store: FakeLeaseStore, clock: FakeClock, identity: string, release = true) {
  const client = store.client();
  const el = new LeaderElector(client, { ...opts, identity, releaseOnCancel: release }, clock);
  const state = { leading: false, starts: 0, lost: 0 };
  const stop = new AbortController();
  const done = el.run(stop.signal, {
    onStartedLeading: () => {
      state.leading = true;
      state.starts++;
    },
    onStoppedLeading: (why) => {
      state.leading = false;
      if (why === 'lost') state.lost++;
    },
  });
  return { el, client, state, stop, done };
}

describe('MicroTime', () => {
  it('has exactly six fractional digits', () => {
    assert.equal(formatMicroTime(Date.UTC(2024, 4, 1, 10, 0, 0, 123)), '2024-05-01T10:00:00.123000Z');
    assert.equal(formatMicroTime(Date.UTC(2024, 4, 1, 10, 0, 0, 0)), '2024-05-01T10:00:00.000000Z');
    assert.match(formatMicroTime(Date.now()), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });
});

describe('LeaderElector', () => {
  it('creates the Lease with MicroTime timestamps and renews it', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await advanceUntil(clock, () => a.state.leading, 'a leads', 1000);
    const lease = store.objects.get('default/op') as Lease;
    assert.equal(lease.spec?.holderIdentity, 'a');
    assert.equal(lease.spec?.leaseDurationSeconds, 15);
    assert.match(String(lease.spec?.renewTime), /\.\d{6}Z$/);
    assert.match(String(lease.spec?.acquireTime), /\.\d{6}Z$/);
    const before = store.writes.length;
    await clock.advance(10_000);
    assert.ok(store.writes.length >= before + 4, 'renewed every retryPeriod');
    assert.equal((store.objects.get('default/op') as Lease).spec?.acquireTime, lease.spec?.acquireTime);
    a.stop.abort();
    await a.done;
    assert.equal((store.objects.get('default/op') as Lease).spec?.holderIdentity, '', 'released on stop');
  });

  it('a standby takes over a released Lease at its next retry', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await advanceUntil(clock, () => a.state.leading, 'a leads', 1000);
    const b = candidate(store, clock, 'b');
    await clock.advance(20_000);
    assert.equal(b.state.leading, false, 'b waits while a renews');
    a.stop.abort();
    await a.done;
    const released = clock.now();
    await advanceUntil(clock, () => b.state.leading, 'b leads', 10_000, 100);
    assert.ok(clock.now() - released <= 2 * 2_000 * 1.1 + 100, 'within ~ one jittered retry period');
    assert.equal((store.objects.get('default/op') as Lease).spec?.leaseTransitions, 1);
    b.stop.abort();
    await b.done;
  });

  it('a partitioned leader stops before the standby can take over (never two leaders)', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await advanceUntil(clock, () => a.state.leading, 'a leads', 1000);
    const b = candidate(store, clock, 'b');
    await clock.advance(5_000);
    a.client.partitioned = true;
    const cut = clock.now();
    let aStoppedAt = 0;
    let bStartedAt = 0;
    let both = false;
    for (let t = 0; t < 40_000 && !bStartedAt; t += 100) {
      await clock.advance(100);
      if (a.state.leading && b.state.leading) both = true;
      if (!a.state.leading && !aStoppedAt) aStoppedAt = clock.now();
      if (b.state.leading && !bStartedAt) bStartedAt = clock.now();
    }
    assert.equal(both, false);
    assert.equal(a.state.lost, 1);
    assert.ok(aStoppedAt - cut <= 10_000 + 2_000, `a gave up within renewDeadline (+1 retry): ${aStoppedAt - cut}`);
    assert.ok(bStartedAt > aStoppedAt);
    assert.ok(
      bStartedAt - cut <= 15_000 + 2 * MAX_RETRY_MS + 200,
      `b took over within the lease duration: ${bStartedAt - cut}`,
    );
    // Healed, a finds b holding the Lease and stays a follower.
    a.client.partitioned = false;
    await clock.advance(30_000);
    assert.equal(a.state.leading, false);
    assert.equal(b.state.leading, true);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
  });

  it('a crashed leader (no release) is replaced after the lease duration', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a', false);
    await advanceUntil(clock, () => a.state.leading, 'a leads', 1000);
    const b = candidate(store, clock, 'b');
    await clock.advance(3_000);
    a.stop.abort();
    await a.done;
    const crashed = clock.now();
    assert.equal((store.objects.get('default/op') as Lease).spec?.holderIdentity, 'a');
    await advanceUntil(clock, () => b.state.leading, 'b leads', 30_000, 100);
    assert.ok(clock.now() - crashed >= 13_000, 'not before the lease could have expired');
    assert.ok(clock.now() - crashed <= 15_000 + 2 * MAX_RETRY_MS + 200);
    b.stop.abort();
    await b.done;
  });

  it('rejects inconsistent timings', () => {
    const store = new FakeLeaseStore();
    assert.throws(
      () => new LeaderElector(store.client(), { ...opts, renewDeadlineMs: 15_000 }),
      /renewDeadline must be shorter/,
    );
  });
});
