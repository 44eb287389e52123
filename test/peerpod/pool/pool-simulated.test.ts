// The warm VM pool (CAA#1317) on the embedded cluster with the simulated cloud: two nodes, each with
// its adaptor acting under the RBAC `peerpods manifests` generates. Every change of the cloud is
// watched, so "no VM lost or handed to two pods" is checked at each step, not sampled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { KubeClient, Manager, Pods, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import type { StartAdaptorOptions } from '../../../src/peerpod/adaptor/index.ts';
import {
  POOL_CLAIMED_BY_ANNOTATION,
  POOL_CLAIMED_FROM_ANNOTATION,
  PeerPodAnnotations,
  PeerPodConfigs,
  PeerPods,
} from '../../../src/peerpod/api/index.ts';
import type { PeerPod, PeerPodConfig } from '../../../src/peerpod/api/index.ts';
import { POOL_RECORD_TAG } from '../../../src/peerpod/adaptor/pool/records.ts';
import { SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import type { SimulatedChange } from '../../../src/peerpod/providers/index.ts';
import { setupPeerPodController } from '../../../src/peerpod/controllers/index.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';
import { histogram, parseExposition } from '../../helpers/prometheus.ts';
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
} from '../adaptor/helpers.ts';
import type { Adaptors, Env } from '../adaptor/helpers.ts';
import { advertise, createPoolConfig, idsOf, poolRecords, readySpares, setPool } from './helpers.ts';

describe('warm VM pool (simulated cloud, two nodes)', { timeout: 240_000 }, () => {
  let env: Env;
  let cloud: SimulatedProvider;
  let user: string;
  let opts: Omit<StartAdaptorOptions, 'nodeName'>;
  let adaptors: Adaptors;
  let node1: Adaptors | undefined;
  let controller: { manager: Manager; running: Promise<void>; client: KubeClient } | undefined;
  let sweepOnce: () => Promise<Array<{ deleted: string[] }>>;
  const deleted: string[] = [];
  let crashAt: { step: 'marked' | 'running' | 'recorded'; pod: string } | undefined;
  let crashed: Promise<void> | undefined;

  before(async () => {
    env = await startEnv();
    cloud = new SimulatedProvider();
    cloud.watch((c: SimulatedChange) => {
      if (c.type === 'deleted') deleted.push(c.instance.id);
    });
    user = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    // node-2's capacity bounds its pool in the race below; node-1's leaves room for the crash tests' pods.
    await advertise(env, 'node-1', 8);
    await advertise(env, 'node-2', 4);
    // A test crash: the hook stops the node's adaptor (as a SIGKILL would, mid-reconcile) and never returns.
    const crash =
      (step: 'marked' | 'running' | 'recorded') =>
      async (pod: KubeObject, _obj: KubeObject, signal: AbortSignal): Promise<void> => {
        if (crashAt?.step !== step || crashAt.pod !== pod.metadata.name) return;
        crashAt = undefined;
        crashed = undefined;
        // 'running': the pod's status is written before its PeerPod; die once it is seen.
        if (step === 'running')
          await eventually(async () => isReady(await getPod(env, pod)), { what: 'Running first' });
        const a = node1 ?? adaptors;
        crashed = a.byNode.get('node-1')?.stop();
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('crashed'))));
      };
    opts = {
      provider: cloud,
      hooks: {
        afterSpareClaimed: crash('marked'),
        beforeClaimRecorded: crash('running'),
        afterClaimRecorded: crash('recorded'),
      },
      // The crash hook holds its reconcile until the stop aborts it.
      manager: { server: false, handleSignals: false, gracefulShutdownTimeoutMs: 200 },
    };
    adaptors = await startAdaptors(env, opts, { asUser: user });

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
    await adaptors?.stop();
    await node1?.stop();
    if (controller) {
      await controller.manager.stop();
      await controller.running.catch(() => undefined);
      controller.client.close();
    }
    await env?.stop();
  });

  /**
   * Every VM is named by at most one live record, and every VM the cloud holds by one (a spare being
   * made is named by its record's UID tag until its ID is written).
   */
  async function assertEveryVmOwnedOnce(): Promise<void> {
    const vms = cloud.snapshot();
    const list = await env.client.listAll<PeerPod>(PeerPods);
    const live = list.items.filter((pp) => !pp.metadata.deletionTimestamp && pp.spec?.instanceID);
    const byVm = new Map<string, string[]>();
    for (const pp of live) {
      // A claimed record and the pod's PeerPod name the same VM for a moment: that is the hand-over.
      if (pp.metadata.annotations?.[POOL_CLAIMED_BY_ANNOTATION]) continue;
      byVm.set(pp.spec?.instanceID as string, [
        ...(byVm.get(pp.spec?.instanceID as string) ?? []),
        pp.metadata.name as string,
      ]);
    }
    for (const [vm, names] of byVm) assert.equal(names.length, 1, `VM ${vm} is named by ${names.join(', ')}`);
    // Coverage counts records being deleted too: their VM goes before they do.
    const named = new Set(list.items.map((pp) => pp.spec?.instanceID).filter((id) => id));
    const beingMade = new Set(list.items.filter((pp) => !pp.spec?.instanceID).map((pp) => pp.metadata.uid));
    for (const vm of vms) {
      const recordUid = vm.tags[POOL_RECORD_TAG];
      assert.ok(
        named.has(vm.id) || (recordUid !== undefined && beingMade.has(recordUid)),
        `VM ${vm.id} is named by no record`,
      );
    }
  }

  it('fills each node to sizePerNode and reports it on the config status', async () => {
    await createPoolConfig(env, { sizePerNode: 2 });
    await eventually(
      async () => (await readySpares(env, 'node-1')).length === 2 && (await readySpares(env, 'node-2')).length === 2,
      {
        what: '2 ready spares on each node',
      },
    );
    assert.equal(cloud.snapshot().length, 4);
    await eventually(
      async () => {
        const cfg = await env.client.get<PeerPodConfig>(PeerPodConfigs, 'pool-config', SETTINGS_NS);
        const nodes = cfg.status?.pool?.nodes ?? {};
        return nodes['node-1']?.ready === 2 && nodes['node-1']?.desired === 2 && nodes['node-2']?.ready === 2;
      },
      { what: 'status.pool.nodes to show 2/2 on each node' },
    );
    await assertEveryVmOwnedOnce();
  });

  it('hands a spare to a peer pod (no create on its way up), then refills', async () => {
    const spares = await readySpares(env, 'node-1');
    const creates = cloud.stats.calls.create;
    const pod = await createPod(env, { name: 'warm-1', nodeName: 'node-1' });
    const running = await eventually(
      async () => {
        const p = await getPod(env, pod);
        return isReady(p) && p;
      },
      { what: 'warm-1 Running' },
    );
    const [pp] = await peerPodsOf(env, pod);
    const from = spares.find((s) => s.spec?.instanceID === pp.spec?.instanceID);
    assert.ok(from, 'the pod runs on one of the spares');
    assert.equal(pp.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION], from.metadata.name);
    assert.equal(running.status?.podIP, from.metadata.annotations?.[PeerPodAnnotations.ip]);
    assert.ok((await eventsFor(env, pod)).some((e) => e.reason === 'VMClaimed'));
    await eventually(
      async () => {
        const now = await readySpares(env, 'node-1');
        return now.length === 2 && !now.some((s) => s.spec?.instanceID === pp.spec?.instanceID);
      },
      { what: 'node-1 refilled to 2 spares' },
    );
    assert.ok(!(await poolRecords(env)).some((r) => r.metadata.name === from.metadata.name), 'the claimed record left');
    assert.equal(cloud.stats.calls.create, creates + 1, 'one create: the refill; none for the pod');
    assert.ok(!deleted.includes(pp.spec?.instanceID as string), 'the claimed VM was never deleted');
    const samples = parseExposition(await (adaptors.registries.get('node-1') as Registry).metrics());
    const started = (start: string) =>
      histogram(samples, 'peerpods_adaptor_pod_created_to_running_seconds', { start })?.count ?? 0;
    assert.equal(started('claim'), 1, 'the start is counted as a claim');
    assert.equal(started('cold'), 0);
    await assertEveryVmOwnedOnce();
  });

  it('gives three pods racing for two spares three different VMs, and keeps pods plus spares within capacity', async () => {
    const pods = await Promise.all(
      ['race-1', 'race-2', 'race-3'].map((name) => createPod(env, { name, nodeName: 'node-2' })),
    );
    await eventually(async () => (await Promise.all(pods.map((p) => getPod(env, p)))).every(isReady), {
      what: 'the three pods Running',
    });
    const records = (await Promise.all(pods.map((p) => peerPodsOf(env, p)))).map((l) => l[0]);
    assert.equal(new Set(records.map((pp) => pp.spec?.instanceID)).size, 3, 'three different VMs');
    const warm = records.filter((pp) => pp.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION]);
    assert.equal(warm.length, 2, 'two took the spares, one went cold');
    // Capacity 4, three pods: one spare at most.
    await eventually(async () => (await readySpares(env, 'node-2')).length === 1, { what: 'node-2 holds 1 spare' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await poolRecords(env, 'node-2')).length, 1, 'no more than capacity − pods');
    await assertEveryVmOwnedOnce();
    await Promise.all(pods.map((p) => env.client.delete(Pods, p.metadata.name as string, 'default')));
    await eventually(async () => (await Promise.all(pods.map((p) => getPod(env, p)))).every((p) => !p), {
      what: 'the race pods gone',
    });
    await eventually(async () => (await readySpares(env, 'node-2')).length === 2, { what: 'node-2 back to 2 spares' });
  });

  /** The pool record on node-1 the pod has claimed, once it has. */
  function recordClaimedBy(pod: KubeObject): Promise<PeerPod> {
    return eventually(
      async () =>
        (await poolRecords(env, 'node-1')).find((r) =>
          r.metadata.annotations?.[POOL_CLAIMED_BY_ANNOTATION]?.endsWith(`/${pod.metadata.uid}`),
        ),
      { what: `a record claimed by ${pod.metadata.name}` },
    );
  }

  /** The armed crash has happened: what the test saw may land before the hook runs. */
  async function crashDone(): Promise<void> {
    await eventually(async () => crashAt === undefined && crashed !== undefined, { what: 'the adaptor crash' });
    await crashed;
  }

  async function restartNode1(): Promise<void> {
    await crashDone();
    await node1?.stop().catch(() => undefined);
    node1 = await startAdaptors(env, opts, { nodes: ['node-1'], asUser: user });
  }

  it('resumes a claim killed after the record was marked: the pod gets that VM, nothing is lost', async () => {
    crashAt = { step: 'marked', pod: 'crash-marked' };
    const vmsBefore = idsOf(cloud.snapshot());
    const pod = await createPod(env, { name: 'crash-marked', nodeName: 'node-1' });
    const marked = await recordClaimedBy(pod);
    await crashDone();
    assert.equal((await peerPodsOf(env, pod)).length, 0, 'killed before the pod PeerPod');
    const now = idsOf(cloud.snapshot());
    for (const id of vmsBefore) assert.ok(now.includes(id), `VM ${id} survived the crash`);
    await restartNode1();
    await eventually(async () => isReady(await getPod(env, pod)), { what: 'crash-marked Running' });
    const [pp] = await peerPodsOf(env, pod);
    assert.equal(pp.spec?.instanceID, marked.spec?.instanceID, 'the pod got the VM it had claimed');
    await eventually(async () => !(await poolRecords(env)).some((r) => r.metadata.name === marked.metadata.name), {
      what: 'the claimed record to leave',
    });
    assert.ok(!deleted.includes(marked.spec?.instanceID as string));
    await assertEveryVmOwnedOnce();
  });

  it('finishes a claim killed after the pod PeerPod was written: the record leaves, the VM stays', async () => {
    crashAt = { step: 'recorded', pod: 'crash-recorded' };
    const pod = await createPod(env, { name: 'crash-recorded', nodeName: 'node-1' });
    const pp = await eventually(async () => (await peerPodsOf(env, pod))[0], { what: 'the pod PeerPod' });
    await crashDone();
    const from = pp.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION];
    assert.ok(
      (await poolRecords(env)).some((r) => r.metadata.name === from),
      'the record is still there',
    );
    await restartNode1();
    await eventually(async () => isReady(await getPod(env, pod)), { what: 'crash-recorded Running' });
    await eventually(async () => !(await poolRecords(env)).some((r) => r.metadata.name === from), {
      what: 'the claimed record to leave',
    });
    assert.ok(!deleted.includes(pp.spec?.instanceID as string), 'the VM was never deleted');
    assert.ok(cloud.snapshot().some((v) => v.id === pp.spec?.instanceID));
    await assertEveryVmOwnedOnce();
  });

  it('finishes a claim killed after the pod was reported Running, before its PeerPod: same VM, nothing lost', async () => {
    crashAt = { step: 'running', pod: 'crash-running' };
    const pod = await createPod(env, { name: 'crash-running', nodeName: 'node-1' });
    const marked = await recordClaimedBy(pod);
    await crashDone();
    assert.ok(isReady(await getPod(env, pod)), 'the pod reports Running');
    assert.equal((await peerPodsOf(env, pod)).length, 0, 'killed before the pod PeerPod');
    await restartNode1();
    const pp = await eventually(async () => (await peerPodsOf(env, pod))[0], { what: 'the pod PeerPod' });
    assert.equal(pp.spec?.instanceID, marked.spec?.instanceID, 'the pod kept the VM it runs in');
    await eventually(async () => !(await poolRecords(env)).some((r) => r.metadata.name === marked.metadata.name), {
      what: 'the claimed record to leave',
    });
    assert.ok(isReady(await getPod(env, pod)), 'still Running');
    assert.ok(!deleted.includes(marked.spec?.instanceID as string), 'the VM was never deleted');
    await assertEveryVmOwnedOnce();
  });

  it('retires a claimed spare with its VM when its claimant is deleted before its PeerPod: never handed on', async () => {
    crashAt = { step: 'running', pod: 'crash-gone' };
    const pod = await createPod(env, { name: 'crash-gone', nodeName: 'node-1' });
    const marked = await recordClaimedBy(pod);
    await crashDone();
    const vm = marked.spec?.instanceID as string;
    await env.client.delete(Pods, 'crash-gone', 'default', { gracePeriodSeconds: 0 });
    await eventually(async () => !(await getPod(env, pod)), { what: 'crash-gone deleted' });
    await restartNode1();
    await eventually(async () => deleted.includes(vm), { what: 'the VM crash-gone ran in deleted' });
    await eventually(async () => !(await poolRecords(env)).some((r) => r.metadata.name === marked.metadata.name), {
      what: 'its record gone',
    });
    await eventually(async () => (await readySpares(env, 'node-1')).length === 2, { what: 'node-1 refilled' });
    assert.ok(!idsOf(await readySpares(env, 'node-1')).includes(vm), 'no spare names that VM');
    await assertEveryVmOwnedOnce();
  });

  it('the orphan sweep and the PeerPod controller leave live spares alone', async () => {
    await eventually(async () => (await readySpares(env)).length === 4, { what: '2 spares on each node' });
    const spares = idsOf(await readySpares(env));
    const results = await sweepOnce();
    assert.deepEqual(
      results.flatMap((r) => r.deleted),
      [],
    );
    await eventually(async () => (await readySpares(env)).every((r) => r.status?.phase === 'Active'), {
      what: 'spares Active (the PeerPod controller saw them, deleted none as a duplicate)',
    });
    for (const id of spares) assert.ok(!deleted.includes(id), `spare ${id} kept`);
  });

  it('replaces spares older than maxAge', async () => {
    const before = idsOf(await readySpares(env, 'node-1'));
    await setPool(env, { sizePerNode: 2, maxAge: '2s' });
    await eventually(
      async () => {
        const now = idsOf(await readySpares(env, 'node-1'));
        return now.length === 2 && now.every((id) => !before.includes(id));
      },
      { what: 'both node-1 spares replaced', timeoutMs: 30_000 },
    );
    for (const id of before) assert.ok(deleted.includes(id), `old spare ${id} deleted`);
    await setPool(env, { sizePerNode: 2 });
  });

  it('shrinking the pool deletes the spare VMs beyond the new size', async () => {
    await setPool(env, { sizePerNode: 1 });
    await eventually(
      async () => (await poolRecords(env, 'node-1')).length === 1 && (await poolRecords(env, 'node-2')).length === 1,
      { what: 'one record per node' },
    );
    const pods = (await env.client.list<PeerPod>(PeerPods, { namespace: 'default' })).items.length;
    await eventually(() => cloud.snapshot().length === pods + 2, { what: 'VMs = pods + 2 spares' });
    await assertEveryVmOwnedOnce();
  });

  it('deleting the PeerPodConfig deletes every spare and keeps the pods’ VMs', async () => {
    const podVms = idsOf((await env.client.list<PeerPod>(PeerPods, { namespace: 'default' })).items);
    await env.client.delete(PeerPodConfigs, 'pool-config', SETTINGS_NS);
    await eventually(async () => (await poolRecords(env)).length === 0, { what: 'no pool record left' });
    await eventually(() => idsOf(cloud.snapshot()).join() === podVms.join(), { what: 'only the pods’ VMs left' });
  });
});
