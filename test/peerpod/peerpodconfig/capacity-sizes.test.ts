// Capacity counted at the VM sizes in use: the PeerPods of the config's provider record the size
// each pod asked for (`peerpods.io/vm-size`, as the adaptor writes it); the provider is asked at each,
// the size that fits fewest decides, and the condition names it. Here qemu on this host: one PeerPod
// of a 1 TiB VM takes the limit to 0, whatever the small default size would allow.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigMaps, installCrds } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import {
  PeerPodAnnotations,
  PeerPodConfigs,
  PeerPods,
  formatVmSize,
  parseVmSize,
  peerPodCrd,
} from '../../../src/peerpod/api/index.ts';
import type { PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { NS, createConfig, eventually, startController, startEnv, waitForCapacity } from './helpers.ts';
import type { Env, Running } from './helpers.ts';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

const limited = (c: PeerPodConfig) =>
  (c.status?.conditions as Condition[] | undefined)?.find((x) => x.type === 'CapacityLimited');

async function configWhere(env: Env, ok: (c: PeerPodConfig) => boolean, what: string): Promise<PeerPodConfig> {
  let last: PeerPodConfig | undefined;
  try {
    return await eventually(
      async () => {
        last = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'sized', NS);
        return ok(last) ? last : undefined;
      },
      { what, timeoutMs: 20_000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; status: ${JSON.stringify(last?.status)}`);
  }
}

async function peerPod(env: Env, name: string, provider: string, size: string): Promise<void> {
  await env.client.create(PeerPods, {
    metadata: { name, namespace: NS, annotations: { [PeerPodAnnotations.vmSize]: size } },
    spec: { cloudProvider: provider, instanceID: `vm-${name}` },
  } as KubeObject);
}

describe('PeerPodConfig capacity counted at the VM sizes in use (qemu host)', () => {
  let env: Env;
  let ctrl: Running;
  let stateDir: string;
  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'ppc-sizes-'));
    env = await startEnv(1);
    await installCrds(env.client, [peerPodCrd()], { fieldManager: 'peerpods' });
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: NS },
      data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: stateDir, QEMU_DEFAULT_VCPUS: '1', QEMU_DEFAULT_MEMORY: '128' },
    });
    ctrl = await startController(env, { webhook: false, deployAdaptor: false, capacity: { recheckMs: 1000 } });
  });
  after(async () => {
    await ctrl.stop();
    await env.stop();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('sizes by the default while no VM runs, then by the largest VM in use, and back', async () => {
    await createConfig(env, 'sized', { limit: '4' });
    let cfg = await configWhere(env, (c) => limited(c)?.reason === 'WithinCapacity', 'WithinCapacity at the default');
    assert.match(
      limited(cfg)?.message ?? '',
      /MemAvailable \d+ MiB \/ 128 MiB per VM = \d+.*; 0 VM\(s\) of this cluster running$/,
    );

    // One small and one 1 TiB VM of qemu; another provider's huge VM is not qemu's business.
    await peerPod(env, 'small', 'qemu', 'default');
    await peerPod(env, 'huge', 'qemu', '1/1048576Mi');
    await peerPod(env, 'elsewhere', 'aws', 'x2iedn.32xlarge');
    cfg = await configWhere(env, (c) => limited(c)?.status === 'True', 'CapacityLimited by the 1 TiB VM');
    const cond = limited(cfg) as Condition;
    assert.equal(cond.reason, 'HostMemory');
    assert.match(cond.message, /^limit 4 lowered to 0: qemu: MemAvailable \d+ MiB \/ 1048576 MiB per VM = 0 \(/);
    assert.match(
      cond.message,
      /; 0 VM\(s\) of this cluster running; counted at VM size 1\/1048576Mi, the size in use that fits fewest \(PeerPods: 1\/1048576Mi x1, default x1\)$/,
    );
    assert.equal(cfg.status?.effectiveLimit, 0);
    await waitForCapacity(env, { 'node-1': '0' });

    // The large VM gone, the default size (the only one in use) decides again.
    await env.client.delete(PeerPods, 'huge', NS);
    cfg = await configWhere(env, (c) => c.status?.effectiveLimit === 4, 'the limit restored');
    assert.match(
      limited(cfg)?.message ?? '',
      /^limit 4 fits \(\d+ can be held\): qemu: .*MemAvailable \d+ MiB \/ 128 MiB per VM.*; counted at VM size default, the size in use \(PeerPods: default x1\)$/,
    );
    await waitForCapacity(env, { 'node-1': '4' });
  });

  it('reads back the size text the adaptor writes', () => {
    const sizes = [
      { vcpus: 0, memoryMiB: 0 },
      { vcpus: 2, memoryMiB: 4096 },
      { vcpus: 2, memoryMiB: 0 },
      { vcpus: 0, memoryMiB: 512 },
      { vcpus: 0, memoryMiB: 0, instanceType: 'm6a.large' },
    ];
    for (const size of sizes) assert.deepEqual(parseVmSize(formatVmSize(size)), size, formatVmSize(size));
    assert.deepEqual(
      sizes.map((s) => formatVmSize(s)),
      ['default', '2/4096Mi', '2/default', 'default/512Mi', 'm6a.large'],
    );
    assert.equal(parseVmSize(''), undefined);
  });
});
