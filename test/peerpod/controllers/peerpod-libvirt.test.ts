// The main PeerPod flows with the libvirt provider against a real libvirtd (started by
// ensureLibvirtd when not running, and stopped again if this suite started it): failure path,
// VM already gone, the adaptor's normal path, and the orphan sweep.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Pods } from '../../../src/runtime/index.ts';
import { CLUSTER_UID_TAG, createProvider, ensureLibvirtd } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider, LibvirtdHandle } from '../../../src/peerpod/providers/index.ts';
import {
  adaptorRelease,
  createPeerPod,
  createPod,
  eventually,
  metricValue,
  peerPodGone,
  setSettings,
  startController,
  startEnv,
} from './helpers.ts';
import type { Env, Running } from './helpers.ts';

const SETTINGS = {
  LIBVIRT_URI: 'qemu:///system',
  LIBVIRT_VOL_NAME: 'none',
  LIBVIRT_NET: 'none',
  LIBVIRT_MEMORY: '64',
  LIBVIRT_CPU: '1',
};

describe('PeerPod controller (libvirt)', { timeout: 180_000 }, () => {
  let env: Env;
  let ctl: Running;
  let daemon: LibvirtdHandle | undefined;
  let libvirt: CloudProvider;
  const created: string[] = [];
  const suffix = randomUUID().slice(0, 6);
  let seq = 0;

  const vmFor = async (podName: string) => {
    const vm = await libvirt.createInstance({
      podName,
      podNamespace: 'default',
      sandboxId: `${suffix}${++seq}`.padEnd(8, '0'),
      vcpus: 1,
      memoryMiB: 64,
      tags: { [CLUSTER_UID_TAG]: env.clusterUid },
    });
    created.push(vm.id);
    return vm;
  };
  const exists = async (id: string) => (await libvirt.listInstances({})).some((i) => i.id === id);

  before(async () => {
    daemon = await ensureLibvirtd({ uri: SETTINGS.LIBVIRT_URI });
    env = await startEnv();
    libvirt = await createProvider('libvirt', SETTINGS, { logger: pino({ level: 'silent' }) });
    await setSettings(env, { CLOUD_PROVIDER: 'libvirt', ...SETTINGS });
    ctl = await startController(env, { orphanGraceMs: 2000, sweepIntervalMs: 500 });
  });

  after(async () => {
    try {
      await ctl?.stop();
      await env?.stop();
      for (const id of created) await libvirt?.deleteInstance(id).catch(() => undefined);
    } finally {
      await daemon?.stop();
    }
  });

  it('failure path: Pod deleted while the domain runs -> the domain is deleted and the PeerPod goes', async () => {
    const pod = await createPod(env);
    const vm = await vmFor(pod.metadata.name as string);
    const pp = await createPeerPod(env, pod, 'libvirt', vm.id);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp), { timeoutMs: 60_000, what: 'the PeerPod to go' });
    assert.equal(await exists(vm.id), false, 'the domain is gone');
  });

  it('a domain already gone counts as deleted', async () => {
    const pod = await createPod(env);
    const pp = await createPeerPod(env, pod, 'libvirt', randomUUID());
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp), { timeoutMs: 30_000 });
  });

  it('normal path: the adaptor deletes the domain and releases; the controller deletes nothing', async () => {
    const pod = await createPod(env);
    const vm = await vmFor(pod.metadata.name as string);
    const pp = await createPeerPod(env, pod, 'libvirt', vm.id);
    const before = await metricValue(ctl.registry, 'peerpod_instance_deletions_total', { source: 'finalizer' });
    await libvirt.deleteInstance(vm.id);
    await adaptorRelease(env, pp);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp));
    assert.equal(await metricValue(ctl.registry, 'peerpod_instance_deletions_total', { source: 'finalizer' }), before);
  });

  it('sweeps an orphan domain after the grace period and keeps the one a PeerPod names', async () => {
    const pod = await createPod(env);
    const named = await vmFor(pod.metadata.name as string);
    const pp = await createPeerPod(env, pod, 'libvirt', named.id);
    const orphan = await vmFor('orphan');
    await eventually(async () => !(await exists(orphan.id)), { timeoutMs: 60_000, what: 'the orphan to be swept' });
    assert.equal(await exists(named.id), true);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp), { timeoutMs: 60_000 });
    assert.equal(await exists(named.id), false);
  });
});
