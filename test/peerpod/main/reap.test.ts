// The start-up reaper looks at every provider of the stack whose state is in the directory, not
// only the one chosen now: a `--provider qemu` run killed, then `--provider simulated` on the same
// state directory, must not leave the qemu VMs running (real QEMU, a real control plane).
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { KubeClient, installCrds, silentLogger } from '../../../src/runtime/index.ts';
import { PeerPods, peerPodCrd } from '../../../src/peerpod/api/index.ts';
import {
  providerConfigFor,
  qemuProcessesUnder,
  reapOtherProviders,
  reapPreviousRuns,
} from '../../../src/peerpod/main/index.ts';
import { CLUSTER_UID_TAG, createProvider } from '../../../src/peerpod/providers/index.ts';
import { startTestCluster } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import { request, silent, tempDir } from '../providers/helpers.ts';

describe('start-up reaper across providers (real QEMU)', () => {
  let dir: string;
  let cluster: TestCluster;
  let client: KubeClient;

  before(async () => {
    dir = await tempDir('pp-reap');
    cluster = await startTestCluster({ nodes: 0 });
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
    await installCrds(client, [peerPodCrd()], { fieldManager: 'peerpods' });
  });

  after(async () => {
    try {
      const qemu = await createProvider('qemu', providerConfigFor('qemu', dir), { logger: silent });
      for (const vm of await qemu.listInstances({})) await qemu.deleteInstance(vm.id);
    } finally {
      for (const p of await qemuProcessesUnder(dir)) process.kill(p.pid, 'SIGKILL');
      client.close();
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a simulated run deletes the VMs a killed qemu run left, keeping those a stored PeerPod names', async () => {
    const qemu = await createProvider('qemu', providerConfigFor('qemu', dir), { logger: silent });
    const tags = { [CLUSTER_UID_TAG]: 'the-killed-run' };
    const left = await qemu.createInstance(request('left-0', 'aaaaaaaa0000', { tags }));
    const named = await qemu.createInstance(request('named-0', 'bbbbbbbb0000', { tags }));
    await client.create(PeerPods, {
      metadata: { name: 'named-0', namespace: 'default' },
      spec: { cloudProvider: 'qemu', instanceID: named.id },
    });
    assert.equal((await qemuProcessesUnder(dir)).length, 2);

    // What `peerpods start --provider simulated` runs on that directory.
    const simulated = await createProvider('simulated', providerConfigFor('simulated', dir), { logger: silent });
    const clusterUid = 'this-run';
    const reaped =
      (await reapPreviousRuns(simulated, client, clusterUid, silentLogger())) +
      (await reapOtherProviders('simulated', dir, client, silentLogger()));

    assert.equal(reaped, 1);
    const running = await qemuProcessesUnder(dir);
    assert.equal(running.length, 1, 'only the VM a PeerPod names is left');
    assert.ok(running[0].args.includes(named.id));
    assert.deepEqual(
      (await qemu.listInstances({})).map((vm) => vm.id),
      [named.id],
    );
    assert.notEqual(left.id, named.id);
  });

  it('a directory without another provider state is left alone', async () => {
    const empty = await tempDir('pp-reap-empty');
    try {
      assert.equal(await reapOtherProviders('qemu', empty, client, silentLogger()), 0);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
