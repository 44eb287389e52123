// The PeerPod controller against the embedded control plane and real QEMU VMs: the adaptor's normal
// path (the controller stays out of it), the failure path (Pod gone, VM still running), a VM already
// gone, duplicates, a PeerPod without owner, an unknown provider, the orphan sweep, and settings
// reloaded from the ConfigMap and Secret — all as the controller's ServiceAccount, with only the RBAC
// `peerpods manifests` generates for it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Pods, isConditionTrue } from '../../../src/runtime/index.ts';
import { CLUSTER_UID_TAG, createProvider } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider } from '../../../src/peerpod/providers/index.ts';
import { PEERPOD_FINALIZER, PeerPods } from '../../../src/peerpod/api/index.ts';
import type { PeerPod } from '../../../src/peerpod/api/index.ts';
import {
  adaptorRelease,
  cleanupQemu,
  createPeerPod,
  createPod,
  eventsFor,
  eventually,
  getPeerPod,
  metricValue,
  peerPodGone,
  qemuUnder,
  setSettings,
  startController,
  startEnv,
  tempDir,
} from './helpers.ts';
import type { Env, Running } from './helpers.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';

const GRACE_MS = 1500;

describe('PeerPod controller (qemu)', { timeout: 120_000 }, () => {
  let env: Env;
  let ctl: Running;
  let dir: string;
  let qemu: CloudProvider;
  let seq = 0;

  const vmFor = (podName: string, tags: Record<string, string> = { [CLUSTER_UID_TAG]: env.clusterUid }) =>
    qemu.createInstance({
      podName,
      podNamespace: 'default',
      sandboxId: `${++seq}`.padStart(8, '0') + randomUUID().slice(0, 4),
      vcpus: 1,
      memoryMiB: 64,
      tags,
    });
  const running = async (id: string) => (await qemu.listInstances({})).some((i) => i.id === id);

  before(async () => {
    env = await startEnv();
    dir = await tempDir('pp-ctrl-qemu');
    qemu = await createProvider('qemu', { QEMU_STATE_DIR: dir }, { logger: pino({ level: 'silent' }) });
    await setSettings(env, { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir });
    // As deployed: the controller's ServiceAccount with only its generated RBAC, so each path below
    // also shows the rules it needs are there.
    const user = await installGeneratedRbac(env.client, 'peerpod-controller');
    ctl = await startController(env, { orphanGraceMs: GRACE_MS, sweepIntervalMs: 250 }, { asUser: user });
  });

  after(async () => {
    try {
      await ctl?.stop();
      await env?.stop();
    } finally {
      await cleanupQemu(dir);
    }
  });

  it('accepts an upstream-shaped PeerPod and reports it Active and owned', async () => {
    const pod = await createPod(env);
    const vm = await vmFor(pod.metadata.name as string);
    const pp = await createPeerPod(env, pod, 'qemu', vm.id);
    const st = await eventually(async () => {
      const cur = await getPeerPod(env, pp);
      return cur.status?.phase === 'Active' && isConditionTrue(cur.status.conditions, 'Owned') ? cur.status : undefined;
    });
    assert.ok(isConditionTrue(st.conditions, 'ProviderReady'));
    assert.equal(st.conditions?.[0].observedGeneration, 1);
    // The adaptor's own cleanup, as upstream StopVM: delete the VM, then release (all finalizers).
    await qemu.deleteInstance(vm.id);
    await adaptorRelease(env, pp);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp), { what: 'GC to remove the PeerPod' });
    assert.equal(await metricValue(ctl.registry, 'peerpod_instance_deletions_total', { source: 'finalizer' }), 0);
  });

  it('failure path: the Pod is deleted while its VM runs -> the VM is deleted and the PeerPod goes', async () => {
    const pod = await createPod(env);
    const vm = await vmFor(pod.metadata.name as string);
    const before = await qemuUnder(dir);
    const pp = await createPeerPod(env, pod, 'qemu', vm.id);
    // Someone else's finalizer must survive ours being removed.
    await env.client.patch(
      PeerPods,
      pp.metadata.name as string,
      'default',
      [{ op: 'add', path: '/metadata/finalizers/-', value: 'other.io/keep' }],
      'json',
    );
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await running(vm.id)), { timeoutMs: 20_000, what: 'the VM to be deleted' });
    const cur = await eventually(async () => {
      const c = await getPeerPod(env, pp);
      return c.metadata.finalizers?.includes(PEERPOD_FINALIZER) ? undefined : c;
    });
    assert.deepEqual(cur.metadata.finalizers, ['other.io/keep']);
    assert.equal((await qemuUnder(dir)).length, before.length - 1, 'exactly one QEMU process ended');
    await adaptorRelease(env, cur);
    await eventually(() => peerPodGone(env, pp));
    assert.equal(
      await metricValue(ctl.registry, 'peerpod_instance_deletions_total', {
        provider: 'qemu',
        result: 'deleted',
        source: 'finalizer',
      }),
      1,
    );
  });

  it('a VM that is already gone counts as deleted', async () => {
    const pod = await createPod(env);
    const pp = await createPeerPod(env, pod, 'qemu', randomUUID());
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp), { what: 'the PeerPod to go' });
  });

  it('deletes older PeerPods of the same Pod (adaptor restart), keeping the newest', async () => {
    const pod = await createPod(env);
    const oldVm = await vmFor(pod.metadata.name as string);
    const older = await createPeerPod(env, pod, 'qemu', oldVm.id);
    // creationTimestamp has one-second precision; upstream compares it strictly.
    await eventually(() => Date.now() - Date.parse(older.metadata.creationTimestamp as string) > 1100, {
      intervalMs: 100,
    });
    const newVm = await vmFor(`${pod.metadata.name}-again`);
    const newer = await createPeerPod(env, pod, 'qemu', newVm.id);
    await eventually(() => peerPodGone(env, older), { timeoutMs: 20_000, what: 'the older PeerPod to go' });
    assert.equal(await running(oldVm.id), false, 'the older VM was deleted');
    assert.equal(await running(newVm.id), true, 'the newer VM runs');
    const ev = await eventually(async () => (await eventsFor(env, newer)).find((e) => e.reason === 'DeletedDuplicate'));
    assert.match(ev.message ?? '', new RegExp(older.metadata.name as string));
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await running(newVm.id)), { timeoutMs: 20_000 });
  });

  it('a PeerPod without owner is reported (event, condition), not a crash', async () => {
    const pp = await createPeerPod(env, undefined, 'qemu', randomUUID());
    const cur = await eventually(async () => {
      const c = await getPeerPod(env, pp);
      return c.status?.phase === 'Unowned' ? c : undefined;
    });
    const owned = cur.status?.conditions?.find((c) => c.type === 'Owned');
    assert.equal(owned?.status, 'False');
    assert.equal(owned?.reason, 'NoOwnerReference');
    await eventually(async () =>
      (await eventsFor(env, pp)).some((e) => e.type === 'Warning' && e.reason === 'NoOwner'),
    );
    // Its deletion still works, and while it runs the phase says so (issue #16: it stayed Unowned).
    const phases: string[] = [];
    const watching = (async () => {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 20_000);
      try {
        for await (const ev of env.client.watch<PeerPod>(PeerPods, {
          namespace: 'default',
          fieldSelector: `metadata.name=${pp.metadata.name}`,
          resourceVersion: cur.metadata.resourceVersion,
          signal: abort.signal,
        })) {
          if (ev.type === 'DELETED') return;
          if (ev.type === 'MODIFIED') phases.push(ev.object.status?.phase ?? '');
        }
      } finally {
        clearTimeout(timer);
      }
    })();
    await env.client.delete(PeerPods, pp.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp));
    await watching;
    assert.ok(phases.includes('Deleting'), `phases seen while deleting: ${phases.join(', ')}`);
  });

  it('an unknown provider is a condition and Warning events (PeerPod and Pod), and nothing else breaks', async () => {
    const pod = await createPod(env);
    const pp = await createPeerPod(env, pod, 'nosuchcloud', 'i-123');
    await env.client.delete(Pods, pod.metadata.name as string, 'default', { gracePeriodSeconds: 0 });
    const cur = await eventually(async () => {
      const c = await getPeerPod(env, pp);
      return c.status?.phase === 'DeleteFailed' ? c : undefined;
    });
    const cond = cur.status?.conditions?.find((x) => x.type === 'ProviderReady');
    assert.equal(cond?.reason, 'UnknownProvider');
    assert.match(cond?.message ?? '', /unknown cloud provider "nosuchcloud"/);
    assert.equal(cur.status?.phase, 'DeleteFailed');
    assert.ok(cur.metadata.finalizers?.includes(PEERPOD_FINALIZER), 'the finalizer stays: the VM may exist');
    await eventually(async () => (await eventsFor(env, pp)).some((e) => e.reason === 'UnknownProvider'));
    // Still working for others.
    const pod2 = await createPod(env);
    const pp2 = await createPeerPod(env, pod2, 'qemu', randomUUID());
    await env.client.delete(Pods, pod2.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp2));
    await adaptorRelease(env, cur);
  });

  it('emits a Warning on the Pod while it exists when the delete fails', async () => {
    const pod = await createPod(env);
    const pp = await createPeerPod(env, pod, 'qemu', 'not-a-uuid');
    // Deleting the PeerPod itself (e.g. a duplicate) leaves the Pod alive.
    await env.client.delete(PeerPods, pp.metadata.name as string, 'default');
    await eventually(async () => (await eventsFor(env, pod)).some((e) => e.reason === 'InvalidInstanceID'), {
      what: 'a Warning on the Pod',
    });
    const cur = await getPeerPod(env, pp);
    assert.equal(cur.status?.phase, 'DeleteFailed');
    assert.match(cur.status?.lastError ?? '', /invalid instance ID/);
    await adaptorRelease(env, cur);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
  });

  it('sweeps an orphan VM of this cluster after the grace period; never a VM a PeerPod names or another cluster tags', async () => {
    const pod = await createPod(env);
    const named = await vmFor(pod.metadata.name as string);
    const pp = await createPeerPod(env, pod, 'qemu', named.id);
    // The grace period runs from the VM's creation, so the clock starts before the orphan is made
    // (starting it after the next VM's slow boot made the check fail on a busy machine).
    const t0 = Date.now();
    const orphan = await vmFor('orphan');
    const foreign = await vmFor('foreign', { [CLUSTER_UID_TAG]: 'another-cluster' });
    await eventually(async () => !(await running(orphan.id)), { timeoutMs: 20_000, what: 'the orphan to be swept' });
    assert.ok(Date.now() - t0 >= GRACE_MS - 200, 'not before the grace period');
    assert.equal(await running(named.id), true, 'the VM named by a PeerPod is untouched');
    assert.equal(await running(foreign.id), true, "another cluster's VM is untouched");
    assert.ok(
      (await metricValue(ctl.registry, 'peerpod_orphans_found_total', { provider: 'qemu' })) >= 1,
      'orphan counted',
    );
    await qemu.deleteInstance(foreign.id);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(() => peerPodGone(env, pp), { timeoutMs: 20_000 });
  });

  it('reloads provider settings from the ConfigMap and Secret (per-provider keys)', async () => {
    // `simulated.` keys apply to the simulated provider only; an invalid value makes it misconfigured.
    await setSettings(env, { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir, 'simulated.SIMULATED_LATENCY_MS': 'soon' });
    const pod = await createPod(env);
    const pp = await createPeerPod(env, pod, 'simulated', 'sim-42');
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    const cond = await eventually(async () =>
      (await getPeerPod(env, pp)).status?.conditions?.find((c) => c.type === 'ProviderReady' && c.status === 'False'),
    );
    assert.equal(cond.reason, 'ProviderMisconfigured');
    assert.match(cond.message, /SIMULATED_LATENCY_MS/);
    // The fix arrives in the Secret, whose keys win over the ConfigMap's.
    await setSettings(
      env,
      { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir, 'simulated.SIMULATED_LATENCY_MS': 'soon' },
      { 'simulated.SIMULATED_LATENCY_MS': '5' },
    );
    await eventually(() => peerPodGone(env, pp), { what: 'the PeerPod to go once the settings are fixed' });
  });
});
