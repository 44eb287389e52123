// Orphan sweep in dry-run mode, and a controller replaced mid-way through a batch of deletions
// (as after a crash or a lost lease): nothing leaks, and deleting a VM twice does no harm.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Namespaces, Pods } from '../../../src/runtime/index.ts';
import { CLUSTER_UID_TAG, createProvider } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider, Instance } from '../../../src/peerpod/providers/index.ts';
import {
  cleanupQemu,
  createPeerPod,
  createPod,
  eventsFor,
  eventually,
  metricValue,
  peerPodGone,
  qemuUnder,
  setSettings,
  startController,
  startEnv,
  tempDir,
} from './helpers.ts';
import type { Env } from './helpers.ts';

describe('PeerPod controller: dry run and restarts (qemu)', { timeout: 120_000 }, () => {
  let env: Env;
  let dir: string;
  let qemu: CloudProvider;
  let seq = 0;
  const vmFor = (podName: string) =>
    qemu.createInstance({
      podName,
      podNamespace: 'default',
      sandboxId: `r${++seq}`.padEnd(8, '0'),
      vcpus: 1,
      memoryMiB: 64,
      tags: { [CLUSTER_UID_TAG]: env.clusterUid },
    });
  const running = async (id: string) => (await qemu.listInstances({})).some((i) => i.id === id);

  before(async () => {
    env = await startEnv();
    dir = await tempDir('pp-ctrl-restart');
    qemu = await createProvider('qemu', { QEMU_STATE_DIR: dir }, { logger: pino({ level: 'silent' }) });
    await setSettings(env, { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir });
  });

  after(async () => {
    try {
      await env?.stop();
    } finally {
      await cleanupQemu(dir);
    }
  });

  it('dry run: an orphan is reported (metric, Warning event) and left running', async () => {
    const ctl = await startController(env, { dryRun: true, orphanGraceMs: 300, sweepIntervalMs: 100 });
    try {
      const orphan = await vmFor('dry');
      await eventually(
        async () => (await metricValue(ctl.registry, 'peerpod_orphans_found_total', { provider: 'qemu' })) === 1,
        { what: 'the orphan to be reported' },
      );
      const ks = await env.client.get(Namespaces, 'kube-system');
      const ev = await eventually(async () => (await eventsFor(env, ks)).find((e) => e.reason === 'OrphanInstance'));
      assert.equal(ev.type, 'Warning');
      assert.match(ev.message ?? '', new RegExp(orphan.id));
      assert.equal(await running(orphan.id), true);
      assert.equal(await metricValue(ctl.registry, 'peerpod_instance_deletions_total', {}), 0);
      await qemu.deleteInstance(orphan.id);
    } finally {
      await ctl.stop();
    }
  });

  it('a controller stopped mid-way and a new one started: every VM deleted, every PeerPod gone', async () => {
    const n = 4;
    const pods = await Promise.all(Array.from({ length: n }, () => createPod(env)));
    const vms: Instance[] = [];
    for (const p of pods) vms.push(await vmFor(p.metadata.name as string));
    const pps = await Promise.all(pods.map((p, i) => createPeerPod(env, p, 'qemu', vms[i].id)));
    const qemuBefore = (await qemuUnder(dir)).length;

    // One delete at a time, and almost no grace on shutdown: the stop cuts through a reconcile.
    const first = await startController(
      env,
      { maxConcurrentDeletes: 1, sweepIntervalMs: 0 },
      { gracefulShutdownTimeoutMs: 1 },
    );
    for (const p of pods) await env.client.delete(Pods, p.metadata.name as string, 'default');
    await eventually(async () => (await Promise.all(pps.map((pp) => peerPodGone(env, pp)))).some(Boolean), {
      timeoutMs: 20_000,
      what: 'the first PeerPod to go',
    });
    await first.stop();
    const firstDeleted = await metricValue(first.registry, 'peerpod_instance_deletions_total', { result: 'deleted' });
    // VMs the first controller deleted whose PeerPod it did not release: the second deletes them again.
    const left = (
      await Promise.all(pps.map(async (pp, i) => !(await peerPodGone(env, pp)) && !(await running(vms[i].id))))
    ).filter(Boolean).length;

    const second = await startController(env, { sweepIntervalMs: 0 });
    try {
      await eventually(async () => (await Promise.all(pps.map((pp) => peerPodGone(env, pp)))).every(Boolean), {
        timeoutMs: 30_000,
        what: 'every PeerPod to go',
      });
      for (const vm of vms) assert.equal(await running(vm.id), false, `VM ${vm.id} deleted`);
      assert.equal((await qemuUnder(dir)).length, qemuBefore - n, 'no QEMU process leaked');
      const secondDeleted = await metricValue(second.registry, 'peerpod_instance_deletions_total', {
        result: 'deleted',
      });
      const failed = await metricValue(second.registry, 'peerpod_instance_deletions_total', { result: 'failed' });
      assert.equal(failed, 0);
      // Each VM was deleted at least once; any overlap is a harmless second delete of a gone VM.
      assert.ok(firstDeleted + secondDeleted >= n, `${firstDeleted} + ${secondDeleted} deletes for ${n} VMs`);
      assert.ok(secondDeleted >= left, `${left} VM(s) deleted a second time without error`);
    } finally {
      await second.stop();
    }
  });
});
