// The adaptor against the embedded control plane (two simulated nodes) and real QEMU VMs, with the
// provider configured the way a cluster configures it (ConfigMap peer-pods-cm): a pod's life from
// scheduling to deletion, a crash between creating the VM and recording it, a pod deleted while the
// adaptor is down, and a pod of another runtime class left to the kubelet — as the adaptor's
// ServiceAccount, with only the RBAC `peerpods manifests` generates for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigMaps, Pods } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPodAnnotations } from '../../../src/peerpod/api/index.ts';
import { NODE_ANNOTATION, POD_UID_TAG, VmAnnotations } from '../../../src/peerpod/adaptor/index.ts';
import { createProvider, FAKE_IP_RANGE } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider, Instance } from '../../../src/peerpod/providers/index.ts';
import { pino } from 'pino';
import {
  NODES,
  SETTINGS_NS,
  argAfter,
  cleanupQemu,
  createPod,
  eventsFor,
  eventually,
  getPod,
  isReady,
  metricValue,
  nodeInternalIp,
  peerPodsOf,
  qemuUnder,
  startAdaptors,
  startEnv,
  tempDir,
} from './helpers.ts';
import type { Adaptors, Env } from './helpers.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import { histogram, parseExposition } from '../../helpers/prometheus.ts';

describe('peer-pod adaptor (qemu)', { timeout: 180_000 }, () => {
  let env: Env;
  let user: string;
  let dir: string;
  let adaptors: Adaptors | undefined;
  /** The same state directory, read directly: what a cloud console would show. */
  let qemu: CloudProvider;

  const vmsOf = async (pod: KubeObject): Promise<Instance[]> =>
    qemu.listInstances({ [POD_UID_TAG]: pod.metadata.uid as string });
  const processesOf = async (pod: KubeObject) =>
    (await qemuUnder(dir)).filter((p) => argAfter(p.args, '-name')?.startsWith(`podvm-${pod.metadata.name}-`));

  before(async () => {
    env = await startEnv();
    dir = await tempDir('pp-adaptor-qemu');
    qemu = await createProvider('qemu', { QEMU_STATE_DIR: dir }, { logger: pino({ level: 'silent' }) });
    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: SETTINGS_NS },
      data: { CLOUD_PROVIDER: 'qemu', QEMU_STATE_DIR: dir },
    });
    // As deployed: the adaptor's ServiceAccount with only its generated RBAC.
    user = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    adaptors = await startAdaptors(env, {}, { asUser: user });
  });

  after(async () => {
    try {
      await adaptors?.stop();
      await env?.stop();
    } finally {
      await cleanupQemu(dir);
    }
  });

  it('runs a pod in a VM sized from its annotations, then deletes both', async () => {
    const pod = await createPod(env, {
      annotations: { [VmAnnotations.vcpus]: '2', [VmAnnotations.memory]: '96' },
    });
    const running = await eventually(
      async () => {
        const cur = await getPod(env, pod);
        return isReady(cur) ? cur : undefined;
      },
      { timeoutMs: 30_000, what: 'the pod to run' },
    );
    const node = running?.spec.nodeName as string;
    assert.ok(NODES.includes(node));

    const [pp, ...more] = await peerPodsOf(env, pod);
    assert.equal(more.length, 0);
    assert.deepEqual(pp.metadata.ownerReferences, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(pp.metadata.finalizers, [PEERPOD_FINALIZER]);
    assert.equal(pp.spec?.cloudProvider, 'qemu');
    assert.equal(pp.metadata.annotations?.[NODE_ANNOTATION], node);
    assert.match(pp.metadata.name as string, new RegExp(`^${pod.metadata.name}-resource-[a-z0-9]{5}$`));

    const [vm, ...extra] = await vmsOf(pod);
    assert.equal(extra.length, 0);
    assert.equal(pp.spec?.instanceID, vm.id);
    assert.equal(vm.name, `podvm-${pod.metadata.name}-${(pod.metadata.uid as string).slice(0, 8)}`);
    const [proc] = await processesOf(pod);
    assert.ok(proc, 'a QEMU process runs the VM');
    assert.equal(argAfter(proc.args, '-uuid'), vm.id);
    assert.equal(argAfter(proc.args, '-smp'), '2');
    assert.equal(argAfter(proc.args, '-m'), '96');

    assert.equal(running?.status?.podIP, vm.ips[0]);
    assert.ok(vm.ips[0].startsWith(FAKE_IP_RANGE.split('.').slice(0, 2).join('.')), vm.ips[0]);
    assert.equal(running?.status?.hostIP, await nodeInternalIp(env, node));
    assert.deepEqual(
      running?.status?.containerStatuses?.map((c) => [c.name, c.ready, !!c.state?.running]),
      [['app', true, true]],
    );
    const created = await eventually(async () => (await eventsFor(env, pod)).find((e) => e.reason === 'VMCreated'));
    assert.equal(created.type, 'Normal');
    const registry = adaptors?.registries.get(node);
    assert.ok(registry);
    assert.equal(await metricValue(registry, 'peerpods_adaptor_vms_running', { node }), 1);
    assert.equal(
      await metricValue(registry, 'peerpods_adaptor_vm_operations_total', { op: 'create', result: 'ok' }),
      1,
    );
    // What `kubectl get peerpods -o wide` shows, and the start observed once (a real QEMU boot).
    assert.equal(pp.metadata.annotations?.[PeerPodAnnotations.ip], vm.ips[0]);
    assert.equal(pp.metadata.annotations?.[PeerPodAnnotations.vmSize], '2/96Mi');
    const started = histogram(
      parseExposition(await registry.metrics()),
      'peerpods_adaptor_pod_created_to_running_seconds',
      { provider: 'qemu', start: 'cold' },
    );
    assert.equal(started?.count, 1);
    assert.ok((started?.sum ?? -1) >= 0 && (started?.sum ?? 99) < 30, `pod created → Running: ${started?.sum} s`);

    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to be gone' });
    await eventually(async () => (await peerPodsOf(env, pod)).length === 0, { what: 'the PeerPod to be collected' });
    assert.equal((await processesOf(pod)).length, 0, 'the QEMU process is gone');
    assert.equal((await vmsOf(pod)).length, 0);
    assert.ok((await eventsFor(env, pod)).some((e) => e.reason === 'VMDeleted' && e.type === 'Normal'));
    const deleted = histogram(
      parseExposition(await registry.metrics()),
      'peerpods_adaptor_pod_deletion_to_vm_deleted_seconds',
      { provider: 'qemu' },
    );
    assert.equal(deleted?.count, 1);
  });

  it('leaves a pod of another runtime class to the kubelet', async () => {
    const pod = await createPod(env, { runtimeClassName: null });
    const running = await eventually(
      async () => {
        const cur = await getPod(env, pod);
        return isReady(cur) ? cur : undefined;
      },
      { what: 'the kubelet to run the pod' },
    );
    assert.match(running.status?.podIP ?? '', /^10\.244\./, 'an IP from the node pod CIDR, not a VM');
    assert.equal((await peerPodsOf(env, pod)).length, 0);
    assert.equal((await vmsOf(pod)).length, 0);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)), { what: 'the kubelet to finish the deletion' });
  });

  it('restarted after a crash between creating the VM and recording it: one VM, no leak', async () => {
    await adaptors?.stop();
    let reached!: () => void;
    const atCrashPoint = new Promise<void>((r) => (reached = r));
    adaptors = await startAdaptors(
      env,
      {
        manager: { gracefulShutdownTimeoutMs: 200 },
        hooks: {
          async afterCreateInstance(_pod, _vm, signal) {
            reached();
            // Stands still, as a killed process would, until the shutdown aborts it.
            await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
            throw new Error('crashed');
          },
        },
      },
      { asUser: user },
    );
    const pod = await createPod(env, { annotations: { [VmAnnotations.memory]: '64' } });
    await atCrashPoint;
    await adaptors.stop();

    const [pp] = await peerPodsOf(env, pod);
    assert.ok(pp, 'the PeerPod was written before the VM');
    assert.equal(pp.spec?.instanceID ?? '', '', 'the crash came before the instance ID was recorded');
    const [vm] = await vmsOf(pod);
    assert.ok(vm, 'the VM exists');
    assert.equal((await getPod(env, pod))?.status?.phase, 'Pending');

    adaptors = await startAdaptors(env, {}, { asUser: user });
    const running = await eventually(
      async () => {
        const cur = await getPod(env, pod);
        return isReady(cur) ? cur : undefined;
      },
      { timeoutMs: 30_000, what: 'the restarted adaptor to run the pod' },
    );
    const vms = await vmsOf(pod);
    assert.deepEqual(
      vms.map((v) => v.id),
      [vm.id],
      'the VM was adopted, not duplicated',
    );
    assert.equal((await processesOf(pod)).length, 1);
    const pps = await peerPodsOf(env, pod);
    assert.deepEqual(
      pps.map((p) => [p.metadata.name, p.spec?.instanceID]),
      [[pp.metadata.name, vm.id]],
    );
    assert.equal(running.status?.podIP, vm.ips[0]);

    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to be gone' });
    assert.equal((await processesOf(pod)).length, 0);
  });

  it('deletes the VM of a pod deleted while the adaptor was down', async () => {
    const pod = await createPod(env, { annotations: { [VmAnnotations.memory]: '64' } });
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 30_000, what: 'the pod to run' });
    assert.equal((await processesOf(pod)).length, 1);
    await adaptors?.stop();
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    // Nobody finishes the deletion while the adaptor is down: the kubelet leaves these pods alone.
    assert.ok((await getPod(env, pod))?.metadata.deletionTimestamp);
    assert.equal((await processesOf(pod)).length, 1);

    adaptors = await startAdaptors(env, {}, { asUser: user });
    await eventually(async () => !(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to be gone' });
    assert.equal((await processesOf(pod)).length, 0);
    await eventually(async () => (await peerPodsOf(env, pod)).length === 0, { what: 'the PeerPod to be collected' });
    assert.equal((await qemu.listInstances({})).length, 0, 'no VM left from any test');
  });
});
