// PROVIDER_CREATE_LATENCY_MS / PROVIDER_DELETE_LATENCY_MS: the windows a fault campaign aims at, where
// the VM exists but the create has not returned, or the delete was asked for but the VM still runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderConfigError } from '../../../src/peerpod/providers/errors.ts';
import { createProvider } from '../../../src/peerpod/providers/registry.ts';
import type { CloudProvider } from '../../../src/peerpod/providers/types.ts';

const request = { podName: 'p', podNamespace: 'default', sandboxId: '0123456789', vcpus: 0, memoryMiB: 0, tags: {} };
const ids = async (p: CloudProvider) => (await p.listInstances({})).map((vm) => vm.id);

describe('provider latency (any provider, from the config)', () => {
  it('a create returns the latency after the VM exists; a delete waits it out before the VM goes', async () => {
    const p = await createProvider('simulated', {
      PROVIDER_CREATE_LATENCY_MS: '300',
      PROVIDER_DELETE_LATENCY_MS: '300',
    });
    assert.equal(p.name, 'simulated', 'PeerPods keep the real provider name');
    const t0 = Date.now();
    let returned = false;
    const creating = p.createInstance(request).then((vm) => ((returned = true), vm));
    // Seen by a lister (the adaptor after a restart, the orphan sweep) before the call returns.
    for (let i = 0; i < 200 && (await ids(p)).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await ids(p)).length, 1);
    assert.equal(returned, false, 'the VM exists while the create is still in flight');
    const vm = await creating;
    assert.ok(Date.now() - t0 >= 300, `create took ${Date.now() - t0} ms`);

    const t1 = Date.now();
    const deleting = p.deleteInstance(vm.id);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await ids(p), [vm.id], 'the VM still exists while the delete is in flight');
    await deleting;
    assert.ok(Date.now() - t1 >= 300, `delete took ${Date.now() - t1} ms`);
    assert.deepEqual(await ids(p), []);
  });

  it('no latency keys: the provider itself; a value that is not milliseconds is a config error', async () => {
    const { SimulatedProvider } = await import('../../../src/peerpod/providers/simulated.ts');
    assert.ok((await createProvider('simulated', {})) instanceof SimulatedProvider);
    await assert.rejects(createProvider('simulated', { PROVIDER_DELETE_LATENCY_MS: '1s' }), (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.match(err.message, /PROVIDER_DELETE_LATENCY_MS \(milliseconds\)/);
      return true;
    });
  });
});
