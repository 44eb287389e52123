// The simulated cloud's test-only create faults and change watch, which the create-retry guard's
// tests rely on: a fault that makes the VM and then fails, one that makes it late, and a watch that
// sees every instance made or deleted with the whole cloud right after.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderError, SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import type { SimulatedChange } from '../../../src/peerpod/providers/index.ts';

const req = (podName: string) => ({
  podName,
  podNamespace: 'default',
  sandboxId: `${podName}-uid-0000`,
  vcpus: 0,
  memoryMiB: 0,
  tags: { pod: podName },
});

describe('simulated cloud faults', () => {
  it('failAfterCreate makes the instance, then fails the call, for `times` creates', async () => {
    const cloud = new SimulatedProvider();
    cloud.setCreateFault({ failAfterCreate: 'image corrupt', times: 2 });
    await assert.rejects(cloud.createInstance(req('a')), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.match(err.message, /^simulated: instance sim-1 \(podvm-a-a-uid-00\): image corrupt$/);
      return true;
    });
    assert.deepEqual(
      cloud.snapshot().map((v) => v.id),
      ['sim-1'],
      'the VM exists although the call failed',
    );
    // Adopted by name, and failed again: the fault is about the VM, not the call.
    await assert.rejects(cloud.createInstance(req('a')), /sim-1.*image corrupt/);
    const vm = await cloud.createInstance(req('a'));
    assert.equal(vm.id, 'sim-1', 'the fault is used up');
  });

  it('delayMs makes the instance only after the delay', async () => {
    const cloud = new SimulatedProvider();
    cloud.setCreateFault({ delayMs: 200, times: 1 });
    const started = Date.now();
    const call = cloud.createInstance(req('b'));
    assert.equal(cloud.snapshot().length, 0, 'nothing yet');
    const vm = await call;
    assert.ok(Date.now() - started >= 190, `returned after ${Date.now() - started} ms`);
    assert.equal(cloud.snapshot()[0].id, vm.id);
  });

  it('watch reports every change with the instances right after it, until removed', async () => {
    const cloud = new SimulatedProvider();
    const seen: SimulatedChange[] = [];
    const stop = cloud.watch((c) => seen.push(c));
    const a = await cloud.createInstance(req('c'));
    const b = await cloud.createInstance(req('d'));
    await cloud.deleteInstance(a.id);
    await cloud.deleteInstance(a.id); // already gone: no change
    cloud.removeOutOfBand(b.id);
    stop();
    await cloud.createInstance(req('e'));
    assert.deepEqual(
      seen.map((c) => [c.type, c.instance.id, c.instances.map((v) => v.id)]),
      [
        ['created', a.id, [a.id]],
        ['created', b.id, [a.id, b.id]],
        ['deleted', a.id, [b.id]],
        ['deleted', b.id, []],
      ],
    );
  });
});
