import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Leases, Manager, runnableFunc, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeClient, Lease, LeaseClient } from '../../../src/runtime/index.ts';
import { startTestCluster } from '../../helpers/runtime-cluster.ts';
import type { TestCluster } from '../../helpers/runtime-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

const LEASE_MS = 1500;
const RENEW_MS = 1000;
const RETRY_MS = 200;
// A candidate retries every RETRY_MS·(1..2.2); the Lease lasts ceil(LEASE_MS/1000) s on the wire.
const TAKEOVER_BOUND_MS = Math.ceil(LEASE_MS / 1000) * 1000 + 2.2 * RETRY_MS * 2 + 500;

/** Counts leader-only runnables running across all managers; records the maximum ever seen. */
class ActiveCounter {
  active = 0;
  max = 0;
  readonly history: string[] = [];
  runnable(who: string) {
    return runnableFunc(async (signal) => {
      this.active++;
      this.max = Math.max(this.max, this.active);
      this.history.push(`+${who}`);
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      this.active--;
      this.history.push(`-${who}`);
    });
  }
}

/** A Lease client that can be cut off, as a network partition would. */
function partitionable(client: KubeClient): LeaseClient & { cut: boolean } {
  const state = { cut: false };
  const guard = (): void => {
    if (state.cut) throw new Error('network unreachable (test partition)');
  };
  const c: LeaseClient & { cut: boolean } = {
    get cut() {
      return state.cut;
    },
    set cut(v: boolean) {
      state.cut = v;
    },
    get: async (type, name, ns, opts) => {
      guard();
      return client.get(type, name, ns, opts);
    },
    create: async (type, obj, opts) => {
      guard();
      return client.create(type, obj, opts);
    },
    update: async (type, obj, opts) => {
      guard();
      return client.update(type, obj, opts);
    },
  };
  return c;
}

describe('leader election failover between two managers', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => {
    await cluster.stop();
  });

  function manager(
    leaseName: string,
    identity: string,
    counter: ActiveCounter,
    extra: { releaseOnCancel?: boolean; leaseClient?: LeaseClient } = {},
  ) {
    const registry = new Registry();
    const client = cluster.client(registry);
    const m = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
      leaderElection: {
        leaseName,
        identity,
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: RENEW_MS,
        retryPeriodMs: RETRY_MS,
        ...(extra.releaseOnCancel !== undefined ? { releaseOnCancel: extra.releaseOnCancel } : {}),
        ...(extra.leaseClient ? { client: extra.leaseClient } : {}),
      },
    });
    m.add(counter.runnable(identity));
    const running = m.start();
    return { m, running, client };
  }

  async function holder(leaseName: string): Promise<string | undefined> {
    const l = await cluster.client().get<Lease>(Leases, leaseName, 'default');
    return l.spec?.holderIdentity ?? undefined;
  }

  it('a stopped leader releases the Lease and the standby takes over promptly', async () => {
    const counter = new ActiveCounter();
    const a = manager('stop-test', 'a', counter);
    await a.m.elected();
    const b = manager('stop-test', 'b', counter);
    // b must stay a follower while a renews: wait for several renewals, then check.
    const first = await cluster.client().get<Lease>(Leases, 'stop-test', 'default');
    await waitFor(async () => {
      const l = await cluster.client().get<Lease>(Leases, 'stop-test', 'default');
      return l.spec?.renewTime !== first.spec?.renewTime;
    }, 'a renewal');
    assert.equal(b.m.isLeader(), false);
    assert.equal(await holder('stop-test'), 'a');
    const lease = await cluster.client().get<Lease>(Leases, 'stop-test', 'default');
    assert.match(String(lease.spec?.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime');

    const t0 = Date.now();
    await a.m.stop();
    await a.running;
    await waitFor(() => b.m.isLeader(), 'b to lead', 10_000);
    const took = Date.now() - t0;
    assert.ok(took < LEASE_MS, `released Lease taken over in ${took} ms, before it would have expired`);
    assert.equal(await holder('stop-test'), 'b');
    assert.equal(counter.max, 1, `never two active: ${counter.history.join(' ')}`);
    await b.m.stop();
    await b.running;
    assert.equal(counter.active, 0);
  });

  it('a killed leader (Lease not released) is replaced within the lease duration', async () => {
    const counter = new ActiveCounter();
    const a = manager('kill-test', 'a', counter, { releaseOnCancel: false });
    await a.m.elected();
    const b = manager('kill-test', 'b', counter);
    await waitFor(async () => (await holder('kill-test')) === 'a', 'a holds the Lease');
    const t0 = Date.now();
    await a.m.stop(); // stops without releasing: the Lease looks exactly like a crashed holder's
    await a.running;
    assert.equal(await holder('kill-test'), 'a');
    await waitFor(() => b.m.isLeader(), 'b to lead', 10_000);
    const took = Date.now() - t0;
    assert.ok(took <= TAKEOVER_BOUND_MS, `took over in ${took} ms (bound ${TAKEOVER_BOUND_MS})`);
    assert.ok(took >= LEASE_MS - RETRY_MS * 2.2 - 100, `not before the Lease expired (${took} ms)`);
    assert.equal(counter.max, 1, `never two active: ${counter.history.join(' ')}`);
    await b.m.stop();
    await b.running;
  });

  it('a partitioned leader stops its controllers before the standby starts, and rejoins as follower', async () => {
    const counter = new ActiveCounter();
    const aLease = partitionable(cluster.client());
    const a = manager('partition-test', 'a', counter, { leaseClient: aLease });
    await a.m.elected();
    const b = manager('partition-test', 'b', counter);
    await waitFor(async () => (await holder('partition-test')) === 'a', 'a holds the Lease');
    aLease.cut = true;
    const t0 = Date.now();
    await waitFor(() => !a.m.isLeader(), 'a to give up', 10_000);
    const aGaveUp = Date.now() - t0;
    await waitFor(() => b.m.isLeader(), 'b to lead', 10_000);
    assert.ok(aGaveUp <= RENEW_MS + RETRY_MS + 300, `a gave up after ${aGaveUp} ms`);
    assert.deepEqual(counter.history, ['+a', '-a', '+b'], 'a stopped before b started');
    assert.equal(counter.max, 1);
    // Healed: a sees b's Lease and stays a follower; its runnable does not come back.
    aLease.cut = false;
    const first = await cluster.client().get<Lease>(Leases, 'partition-test', 'default');
    await waitFor(async () => {
      const l = await cluster.client().get<Lease>(Leases, 'partition-test', 'default');
      return l.spec?.renewTime !== first.spec?.renewTime;
    }, 'b renewing');
    assert.equal(a.m.isLeader(), false);
    assert.equal(counter.active, 1);
    await Promise.all([a.m.stop(), b.m.stop()]);
    await Promise.all([a.running, b.running]);
    assert.equal(counter.active, 0);
  });
});
