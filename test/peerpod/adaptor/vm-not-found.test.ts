// Issue #16: `VMDeleted … deleted qemu VM 00000000-…` was emitted on a pod for a VM that never
// existed. A provider that can tell there was nothing to delete says so (deleteInstance resolves
// false), and the pod gets `VMNotFound` instead.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Pods } from '../../../src/runtime/index.ts';
import { SimulatedProvider, createProvider } from '../../../src/peerpod/providers/index.ts';
import {
  cleanupQemu,
  createPod,
  eventsFor,
  eventually,
  getPod,
  isReady,
  peerPodsOf,
  startAdaptors,
  startEnv,
  tempDir,
} from './helpers.ts';
import type { Adaptors, Env } from './helpers.ts';

describe('deleteInstance tells whether there was a VM', () => {
  it('simulated: true for a VM, false for an ID that names none', async () => {
    const cloud = new SimulatedProvider();
    const vm = await cloud.createInstance({
      podName: 'p',
      podNamespace: 'default',
      sandboxId: 's1',
      vcpus: 1,
      memoryMiB: 64,
      tags: {},
    });
    assert.equal(await cloud.deleteInstance(vm.id), true);
    assert.equal(await cloud.deleteInstance(vm.id), false);
  });

  it('qemu: false for a UUID no VM has', async () => {
    const dir = await tempDir('vm-not-found');
    try {
      const qemu = await createProvider('qemu', { QEMU_STATE_DIR: dir }, { logger: pino({ level: 'silent' }) });
      assert.equal(await qemu.deleteInstance('00000000-0000-4000-8000-000000000000'), false);
      await qemu.close?.();
    } finally {
      await cleanupQemu(dir);
    }
  });
});

describe('the pod of a VM that is already gone', { timeout: 60_000 }, () => {
  let env: Env;
  let cloud: SimulatedProvider;
  let adaptors: Adaptors | undefined;
  before(async () => {
    env = await startEnv();
    cloud = new SimulatedProvider();
    adaptors = await startAdaptors(env, { provider: cloud });
  });
  after(async () => {
    await adaptors?.stop();
    await env?.stop();
  });

  it('gets VMNotFound, not VMDeleted, when its VM no longer exists', async () => {
    const pod = await createPod(env, { name: `gone-${randomUUID().slice(0, 6)}` });
    await eventually(async () => isReady(await getPod(env, pod)), { what: 'the pod to run' });
    const [pp] = await peerPodsOf(env, pod);
    const id = pp?.spec?.instanceID ?? '';
    assert.ok(id, 'the PeerPod names its VM');
    assert.equal(await cloud.deleteInstance(id), true, 'the VM is deleted behind the adaptor');
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => (await getPod(env, pod)) === undefined, { what: 'the pod to go' });
    const events = await eventually(async () => {
      const list = await eventsFor(env, pod);
      return list.some((e) => e.reason === 'VMNotFound') ? list : undefined;
    });
    const notFound = events.find((e) => e.reason === 'VMNotFound');
    assert.equal(notFound?.type, 'Normal');
    assert.equal(notFound?.message, `simulated VM ${id} does not exist: nothing to delete`);
    assert.ok(!events.some((e) => e.reason === 'VMDeleted'), JSON.stringify(events));
  });
});
