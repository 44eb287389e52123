// The create-retry guard (CAA#1737: a bad pod-VM image made upstream create a new VM every ~4 min
// and never delete the old one), against the simulated cloud: every create makes the instance and
// then fails; a create times out and its instance appears later; the fault goes away. Every change
// of the cloud is watched, so "never two VMs for one pod" is checked at each step, not sampled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { exponentialDelay } from '../../../src/apimachinery/index.ts';
import { KubeClient, Manager, Pods, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { POD_UID_TAG } from '../../../src/peerpod/adaptor/index.ts';
import type { AdaptorOptions } from '../../../src/peerpod/adaptor/index.ts';
import { PeerPodAnnotations } from '../../../src/peerpod/api/index.ts';
import { SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import type { Instance, SimulatedChange } from '../../../src/peerpod/providers/index.ts';
import { setupPeerPodController } from '../../../src/peerpod/controllers/index.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import {
  SETTINGS_NS,
  createPod,
  eventsFor,
  eventually,
  getPod,
  isReady,
  peerPodsOf,
  startAdaptors,
  startEnv,
} from './helpers.ts';
import type { Adaptors, Env } from './helpers.ts';

const CONDITION = 'peerpods.io/VMCreateFailed';
const RETRY = { maxAttempts: 4, initialBackoffMs: 400, maxBackoffMs: 5_000, timeoutMs: 1_000 };

interface Step {
  type: SimulatedChange['type'];
  id: string;
  podUid: string;
  at: number;
}

describe('create-retry guard (simulated cloud)', { timeout: 180_000 }, () => {
  let env: Env;
  let cloud: SimulatedProvider;
  let adaptors: Adaptors | undefined;
  let controller: { manager: Manager; running: Promise<void>; client: KubeClient } | undefined;
  let sweepOnce: () => Promise<Array<{ deleted: string[] }>>;
  let afterCreate: ((pod: KubeObject, vm: Instance) => Promise<void>) | undefined;
  const steps: Step[] = [];
  const violations: string[] = [];
  let unwatch: () => void;
  let user: string;
  let opts: Omit<AdaptorOptions, 'nodeName'>;

  before(async () => {
    env = await startEnv();
    cloud = new SimulatedProvider();
    // Every instance made or deleted: no pod may have two VMs at any moment.
    unwatch = cloud.watch((c) => {
      const podUid = c.instance.tags[POD_UID_TAG] ?? '';
      steps.push({ type: c.type, id: c.instance.id, podUid, at: Date.now() });
      const same = c.instances.filter((v) => v.tags[POD_UID_TAG] === podUid);
      if (same.length > 1) violations.push(`pod ${podUid} has ${same.map((v) => v.id).join(', ')} after ${c.type}`);
    });
    user = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    opts = {
      provider: cloud,
      createRetry: RETRY,
      hooks: { afterCreateInstance: (pod, vm) => afterCreate?.(pod, vm) },
    };
    adaptors = await startAdaptors(env, opts, { asUser: user });

    // The PeerPod controller's orphan sweep, run by hand with no grace period.
    const registry = new Registry();
    const client = KubeClient.fromKubeconfigString(env.cluster.kubeconfig, {
      metricsRegistry: registry,
      logger: silentLogger(),
    });
    const manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });
    const ctl = setupPeerPodController(manager, {
      namespace: SETTINGS_NS,
      providerFactory: async () => cloud,
      sweepProviders: ['simulated'],
      sweepIntervalMs: 0,
      orphanGraceMs: 0,
    });
    sweepOnce = () => ctl.sweeper.sweepOnce();
    controller = { manager, running: manager.start(), client };
  });

  after(async () => {
    unwatch?.();
    await adaptors?.stop();
    if (controller) {
      await controller.manager.stop();
      await controller.running.catch(() => undefined);
      controller.client.close();
    }
    await env?.stop();
  });

  const stepsOf = (pod: KubeObject): Step[] => steps.filter((s) => s.podUid === pod.metadata.uid);
  const vmsOf = (pod: KubeObject): Instance[] =>
    cloud.snapshot().filter((v) => v.tags[POD_UID_TAG] === pod.metadata.uid);

  let gaveUp: KubeObject | undefined;

  it('deletes each failed VM before the next attempt, backs off, then marks the pod and stops', async () => {
    const providerError = 'pod VM image is corrupt: no bootable device';
    cloud.setCreateFault({ failAfterCreate: providerError });
    const pod = await createPod(env, { name: 'bad-image' });
    gaveUp = pod;

    // What a user runs: kubectl waits for the condition on the pod.
    const waited = await kubectl(
      env.cluster.kubeconfigPath,
      ['wait', `--for=condition=${CONDITION}`, 'pod/bad-image', '-n', 'default', '--timeout=60s'],
      { version: '1.33', timeoutMs: 70_000 },
    );
    assert.equal(waited.code, 0, waited.stderr);

    assert.deepEqual(violations, [], 'never two VMs for one pod');
    const mine = stepsOf(pod);
    const created = mine.filter((s) => s.type === 'created');
    assert.equal(created.length, RETRY.maxAttempts, 'one VM per attempt, maxAttempts attempts');
    assert.equal(new Set(created.map((s) => s.id)).size, created.length, 'each attempt made a new VM');
    // created A, deleted A, created B, deleted B, ...: the old VM is gone before the next exists.
    for (let i = 0; i < mine.length; i += 2) {
      assert.equal(mine[i].type, 'created', `step ${i}`);
      assert.equal(mine[i + 1]?.type, 'deleted', `step ${i + 1}`);
      assert.equal(mine[i + 1].id, mine[i].id, `step ${i + 1} deletes the VM of step ${i}`);
    }
    assert.equal(vmsOf(pod).length, 0, 'the last attempt left nothing');

    // The wait before attempt n+1 is at least initial·2ⁿ⁻¹, and grows.
    const gaps = created.slice(1).map((s, i) => s.at - created[i].at);
    gaps.forEach((gap, i) => {
      const floor = exponentialDelay(i, RETRY.initialBackoffMs, RETRY.maxBackoffMs);
      assert.ok(gap >= floor, `gap ${i + 1} is ${gap} ms, backoff says at least ${floor} ms`);
      if (i > 0) assert.ok(gap > gaps[i - 1], `gaps grow: ${gaps.join(', ')} ms`);
    });

    const cur = await getPod(env, pod);
    const cond = (cur?.status?.conditions ?? []).find((c) => c.type === CONDITION) as
      { status: string; reason?: string; message?: string } | undefined;
    assert.equal(cond?.status, 'True');
    assert.equal(cond?.reason, 'RetriesExhausted');
    assert.ok(cond?.message?.includes(providerError), cond?.message);
    assert.notEqual(cur?.status?.phase, 'Running');

    const events = await eventsFor(env, pod);
    const failed = events.filter((e) => e.reason === 'VMCreateFailed');
    assert.ok(failed.length >= 1 && failed.every((e) => e.type === 'Warning'));
    assert.ok(
      failed.some((e) => e.message?.includes(`attempt ${RETRY.maxAttempts} of ${RETRY.maxAttempts}`)),
      JSON.stringify(failed),
    );
    const exhausted = events.filter((e) => e.reason === 'VMCreateRetriesExhausted');
    assert.equal(exhausted.length, 1);
    assert.equal(exhausted[0].type, 'Warning');
    assert.ok(exhausted[0].message?.includes(providerError), exhausted[0].message);

    const [pp] = await peerPodsOf(env, pod);
    assert.equal(pp.spec?.instanceID ?? '', '', 'no VM recorded');
    assert.equal(pp.metadata.annotations?.[PeerPodAnnotations.createFailures], String(RETRY.maxAttempts));
    assert.equal(pp.metadata.annotations?.[PeerPodAnnotations.createGaveUp], 'true');
    assert.equal(pp.metadata.annotations?.[PeerPodAnnotations.createRetryAt], undefined);

    // Creates stop: a reconcile of the pod (any update) cleans up, and creates nothing.
    const creates = cloud.stats.calls.create;
    const lists = cloud.stats.calls.list;
    await env.client.patch(Pods, 'bad-image', 'default', { metadata: { labels: { poke: '1' } } }, 'merge');
    await eventually(() => cloud.stats.calls.list > lists, { what: 'the adaptor to reconcile the pod again' });
    assert.equal(cloud.stats.calls.create, creates, 'no create after giving up');
    const again = (await eventsFor(env, pod)).filter((e) => e.reason === 'VMCreateRetriesExhausted');
    assert.equal(again.length, 1, 'the Warning is not repeated');
  });

  it('recovers: with the fault removed a new pod gets its VM; the marked pod is deleted cleanly', async () => {
    cloud.setCreateFault(undefined);
    const pod = await createPod(env, { name: 'good-image' });
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to run' });
    assert.equal(vmsOf(pod).length, 1);
    const [pp] = await peerPodsOf(env, pod);
    assert.equal(pp.spec?.instanceID, vmsOf(pod)[0].id);
    assert.equal(pp.metadata.annotations?.[PeerPodAnnotations.createFailures], undefined);

    for (const p of [pod, gaveUp as KubeObject]) await env.client.delete(Pods, p.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)) && !(await getPod(env, gaveUp as KubeObject)), {
      timeoutMs: 20_000,
      what: 'both pods to be gone',
    });
    assert.equal(vmsOf(pod).length, 0);
    assert.deepEqual(violations, []);
  });

  it('cleans up a VM that appears after its create timed out, then creates one VM', async () => {
    const start = steps.length;
    // The first create returns (and its VM appears) well after the adaptor's timeout.
    cloud.setCreateFault({ delayMs: RETRY.timeoutMs * 2.5, times: 1 });
    const pod = await createPod(env, { name: 'slow-cloud' });
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 30_000, what: 'the pod to run' });

    assert.deepEqual(violations, [], 'never two VMs for one pod');
    const mine = steps.slice(start).filter((s) => s.podUid === pod.metadata.uid);
    assert.deepEqual(
      mine.map((s) => s.type),
      ['created', 'deleted', 'created'],
      'the late VM is deleted before the retry makes one',
    );
    assert.equal(mine[1].id, mine[0].id);
    const [pp] = await peerPodsOf(env, pod);
    assert.equal(pp.spec?.instanceID, mine[2].id);
    assert.deepEqual(
      vmsOf(pod).map((v) => v.id),
      [mine[2].id],
    );
    const events = await eventsFor(env, pod);
    assert.ok(
      events.some((e) => e.reason === 'VMCreateFailed' && /did not return within/.test(e.message ?? '')),
      JSON.stringify(events),
    );
    assert.ok(events.some((e) => e.reason === 'VMDeleted' && e.message?.includes(mine[0].id)));

    await env.client.delete(Pods, 'slow-cloud', 'default');
    await eventually(async () => !(await getPod(env, pod)), { what: 'the pod to be gone' });
    assert.equal(vmsOf(pod).length, 0);
  });

  it('keeps the orphan sweep off the current attempt and leaves no failed attempt behind', async () => {
    const start = steps.length;
    cloud.setCreateFault({ failAfterCreate: 'guest did not boot', times: 1 });
    const seen: Array<{ id: string; swept: string[]; exists: boolean; failures?: string }> = [];
    afterCreate = async (pod, vm) => {
      if (pod.metadata.name !== 'swept') return;
      // The VM exists, its ID is not recorded yet, and the PeerPod carries one failure.
      const [pp] = await peerPodsOf(env, pod);
      const [result] = await sweepOnce();
      seen.push({
        id: vm.id,
        swept: result.deleted,
        exists: cloud.snapshot().some((v) => v.id === vm.id),
        failures: pp.metadata.annotations?.[PeerPodAnnotations.createFailures],
      });
    };
    try {
      const pod = await createPod(env, { name: 'swept' });
      await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to run' });
      const mine = steps.slice(start).filter((s) => s.podUid === pod.metadata.uid);
      assert.deepEqual(
        mine.map((s) => s.type),
        ['created', 'deleted', 'created'],
      );
      assert.equal(seen.length, 1, JSON.stringify(seen));
      assert.deepEqual(seen[0], { id: mine[2].id, swept: [], exists: true, failures: '1' });
      // After the record, the sweep still finds nothing to delete, and no failed VM is left.
      const [result] = await sweepOnce();
      assert.deepEqual(result.deleted, []);
      assert.deepEqual(
        vmsOf(pod).map((v) => v.id),
        [mine[2].id],
      );
      assert.deepEqual(violations, []);
      await env.client.delete(Pods, 'swept', 'default');
      await eventually(async () => !(await getPod(env, pod)), { what: 'the pod to be gone' });
    } finally {
      afterCreate = undefined;
    }
  });

  it('keeps the count and the backoff across an adaptor restart', async () => {
    // Slow enough that the restart falls inside the wait after the second failure.
    const slow = { ...RETRY, maxAttempts: 3, initialBackoffMs: 1_500 };
    await adaptors?.stop();
    adaptors = await startAdaptors(env, { ...opts, createRetry: slow }, { asUser: user });
    const start = steps.length;
    cloud.setCreateFault({ failAfterCreate: 'kernel panic in the guest' });
    try {
      const pod = await createPod(env, { name: 'restarted' });
      await eventually(
        async () => (await peerPodsOf(env, pod))[0]?.metadata.annotations?.[PeerPodAnnotations.createFailures] === '2',
        { timeoutMs: 20_000, what: 'two failed creates' },
      );
      await adaptors?.stop();
      adaptors = await startAdaptors(env, { ...opts, createRetry: slow }, { asUser: user });
      await eventually(
        async () =>
          ((await getPod(env, pod))?.status?.conditions ?? []).some((c) => c.type === CONDITION && c.status === 'True'),
        { timeoutMs: 30_000, what: 'the pod to be marked' },
      );
      const created = steps.slice(start).filter((s) => s.podUid === pod.metadata.uid && s.type === 'created');
      assert.equal(created.length, slow.maxAttempts, 'the restart did not reset the count');
      const wait = exponentialDelay(1, slow.initialBackoffMs, slow.maxBackoffMs);
      assert.ok(created[2].at - created[1].at >= wait, 'the restart did not skip the backoff');
      assert.equal(vmsOf(pod).length, 0);
      assert.deepEqual(violations, []);
      await env.client.delete(Pods, 'restarted', 'default');
      await eventually(async () => !(await getPod(env, pod)), { what: 'the pod to be gone' });
    } finally {
      cloud.setCreateFault(undefined);
    }
  });
});
