// The simulated cloud: latency, seeded failures, quota, idempotency and the concurrency gauge.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { InvalidInstanceIdError, QuotaExceededError } from '../../../src/peerpod/providers/errors.ts';
import {
  SimulatedFailureError,
  SimulatedProvider,
  simulatedOptionsFromConfig,
} from '../../../src/peerpod/providers/simulated.ts';
import { request } from './helpers.ts';

describe('simulated provider', () => {
  it('creates sim-<n> instances with upstream names, lists by tags, deletes idempotently', async () => {
    const p = new SimulatedProvider();
    const a = await p.createInstance(request('web-0', 'aaaaaaaa11', { tags: { cluster: 'c1', role: 'a' } }));
    const b = await p.createInstance(request('web-1', 'bbbbbbbb22', { tags: { cluster: 'c1' } }));
    assert.equal(a.id, 'sim-1');
    assert.equal(b.id, 'sim-2');
    assert.equal(a.name, 'podvm-web-0-aaaaaaaa');
    assert.equal(a.ips.length, 1);
    assert.deepEqual(
      (await p.listInstances({ cluster: 'c1' })).map((i) => i.id),
      ['sim-1', 'sim-2'],
    );
    assert.deepEqual(
      (await p.listInstances({ role: 'a' })).map((i) => i.id),
      ['sim-1'],
    );
    assert.equal((await p.createInstance(request('web-0', 'aaaaaaaa-retry'))).id, 'sim-1', 'same name adopted');
    await p.deleteInstance('sim-1');
    await p.deleteInstance('sim-1');
    await p.deleteInstance('sim-999');
    await assert.rejects(p.deleteInstance('i-123'), InvalidInstanceIdError);
    assert.deepEqual(
      (await p.listInstances({})).map((i) => i.id),
      ['sim-2'],
    );
  });

  it('adds the configured latency to every call', async () => {
    const p = new SimulatedProvider({ latencyMs: 30 });
    const t0 = performance.now();
    await p.listInstances({});
    assert.ok(performance.now() - t0 >= 25);
  });

  it('fails a seeded, reproducible share of calls, before they take effect', async () => {
    const outcomes = async (seed: number) => {
      const p = new SimulatedProvider({ failureRate: 0.3, seed });
      const out: boolean[] = [];
      for (let i = 0; i < 200; i++) {
        out.push(
          await p.createInstance(request(`p${i}`, 'ssssssss')).then(
            () => true,
            (err: unknown) => {
              assert.ok(err instanceof SimulatedFailureError);
              assert.equal(err.retryable, true);
              return false;
            },
          ),
        );
      }
      assert.equal(p.snapshot().length, out.filter(Boolean).length, 'failed creates leave nothing behind');
      return out;
    };
    const first = await outcomes(42);
    assert.deepEqual(await outcomes(42), first);
    assert.notDeepEqual(await outcomes(7), first);
    const failures = first.filter((ok) => !ok).length;
    assert.ok(failures > 35 && failures < 85, `about 30% of 200 failed (${failures})`);
  });

  it('enforces the quota, and deletes free it', async () => {
    const p = new SimulatedProvider({ maxInstances: 2 });
    await p.createInstance(request('a', '1'));
    const b = await p.createInstance(request('b', '2'));
    await assert.rejects(
      p.createInstance(request('c', '3')),
      (err: Error) => err instanceof QuotaExceededError && /2 of 2/.test(err.message),
    );
    await p.deleteInstance(b.id);
    await p.createInstance(request('c', '3'));
  });

  it('records the highest number of deletes in flight', async () => {
    const p = new SimulatedProvider({ latencyMs: 20 });
    const vms = await Promise.all(Array.from({ length: 8 }, (_, i) => p.createInstance(request(`p${i}`, 'x'))));
    assert.equal(p.stats.maxConcurrentCalls, 8);
    p.resetStats();
    for (let i = 0; i < 4; i += 2) await Promise.all([p.deleteInstance(vms[i].id), p.deleteInstance(vms[i + 1].id)]);
    assert.equal(p.stats.maxConcurrentDeletes, 2);
    await Promise.all(vms.slice(4).map((v) => p.deleteInstance(v.id)));
    assert.equal(p.stats.maxConcurrentDeletes, 4);
    assert.equal(p.stats.calls.delete, 8);
    assert.equal(p.stats.inFlightDeletes, 0);
  });

  it('failNext injects failures for one operation; removeOutOfBand makes an instance vanish', async () => {
    const p = new SimulatedProvider();
    const vm = await p.createInstance(request('a', '1'));
    p.failNext('delete', 2);
    await assert.rejects(p.deleteInstance(vm.id), SimulatedFailureError);
    await assert.rejects(p.deleteInstance(vm.id), SimulatedFailureError);
    assert.equal(p.stats.failures.delete, 2);
    assert.ok(p.removeOutOfBand(vm.id));
    await p.deleteInstance(vm.id);
    assert.deepEqual(await p.listInstances({}), []);
  });
});

describe('simulated provider with SIMULATED_STATE_DIR', () => {
  it('two instances on one directory see one cloud: create in one, list and delete in the other', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'peerpods-sim-'));
    try {
      const a = new SimulatedProvider(simulatedOptionsFromConfig({ SIMULATED_STATE_DIR: dir }));
      const b = new SimulatedProvider(simulatedOptionsFromConfig({ SIMULATED_STATE_DIR: dir }));
      const req = { podNamespace: 'default', vcpus: 1, memoryMiB: 128, tags: { cluster: 'x' } };
      const one = await a.createInstance({ ...req, podName: 'one', sandboxId: 'u1' });
      const two = await b.createInstance({ ...req, podName: 'two', sandboxId: 'u2' });
      assert.notEqual(one.id, two.id, 'IDs are claimed across processes');
      const seen = await b.listInstances({ cluster: 'x' });
      assert.deepEqual(seen.map((v) => v.id).sort(), [one.id, two.id].sort());
      assert.ok(seen.every((v) => v.createdAt instanceof Date));
      // The same name in the other instance adopts the VM rather than making a second one.
      assert.equal((await b.createInstance({ ...req, podName: 'one', sandboxId: 'u1' })).id, one.id);
      await b.deleteInstance(one.id);
      assert.deepEqual(
        (await a.listInstances({})).map((v) => v.id),
        [two.id],
      );
      // Its name went with it: the same name now makes a new VM, in either instance.
      const again = await a.createInstance({ ...req, podName: 'one', sandboxId: 'u1' });
      assert.notEqual(again.id, one.id);
      assert.equal((await b.createInstance({ ...req, podName: 'one', sandboxId: 'u1' })).id, again.id);
      // A process that died between removing an instance and its name leaves a name naming nothing.
      rmSync(path.join(dir, `${two.id}.json`));
      const replaced = await b.createInstance({ ...req, podName: 'two', sandboxId: 'u2' });
      assert.notEqual(replaced.id, two.id);
      assert.deepEqual((await a.listInstances({})).map((v) => v.id).sort(), [again.id, replaced.id].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a relative SIMULATED_STATE_DIR', () => {
    assert.throws(() => simulatedOptionsFromConfig({ SIMULATED_STATE_DIR: 'rel/dir' }), /SIMULATED_STATE_DIR/);
  });
});
