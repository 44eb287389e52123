// The orphan sweep deletes a batch of orphans side by side, as many at once as the provider's
// delete limit allows and no more: one at a time, 100 orphans on a cloud whose delete takes a
// second took 116 s with a 10 s grace (bench peerpod-scale), so 1,000 would take about 17 minutes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLUSTER_UID_TAG, SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import { eventually, startController, startEnv } from './helpers.ts';
import type { Env } from './helpers.ts';

describe('PeerPod controller: orphan sweep concurrency', { timeout: 60_000 }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.stop();
  });

  it('deletes 12 orphans with 4 in flight at the peak, never more', async () => {
    const cloud = new SimulatedProvider({ latencyMs: 150 });
    for (let i = 0; i < 12; i++) {
      await cloud.createInstance({
        podName: `orphan-${i}`,
        podNamespace: 'default',
        sandboxId: `${i}`.padStart(8, '0'),
        vcpus: 1,
        memoryMiB: 64,
        tags: { [CLUSTER_UID_TAG]: env.clusterUid },
      });
    }
    cloud.resetStats();
    const ctl = await startController(env, {
      providerFactory: async () => cloud,
      sweepProviders: ['simulated'],
      orphanGraceMs: 0,
      sweepIntervalMs: 100,
      maxConcurrentDeletes: 4,
    });
    try {
      await eventually(() => cloud.snapshot().length === 0, { timeoutMs: 30_000, what: 'every orphan deleted' });
      assert.equal(cloud.stats.maxConcurrentDeletes, 4);
      assert.equal(ctl.handle.pool.semaphore('simulated').maxObserved, 4);
    } finally {
      await ctl.stop();
    }
  });
});
