// The status and nodeindexstatus handlers against an embedded management cluster, with a second
// embedded control plane as the workload cluster whose Node objects the status handler reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Events, Nodes } from '../../../../src/runtime/index.ts';
import type { CoreEvent, EventRecorder, KubeClient } from '../../../../src/runtime/index.ts';
import { KVMConfigs, Labels } from '../../../../src/kvm/api/index.ts';
import type { KVMConfig } from '../../../../src/kvm/api/index.ts';
import { statusHandler } from '../../../../src/kvm/handlers/cluster/status.ts';
import { nodeIndexStatusHandler } from '../../../../src/kvm/handlers/cluster/nodeindex.ts';
import type { KvmDeps } from '../../../../src/kvm/deps.ts';
import { startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import {
  OPERATOR_VERSION,
  clientOf,
  createKvmConfig,
  fixedWorkloadClusters,
  installKvmCrds,
  recordingContext,
  sampleKvmConfig,
  sampleRelease,
  testDeps,
} from '../../helpers.ts';

type Cond = { type: string; status: string; reason?: string; message?: string };

const conditionOf = (c: KVMConfig, type: string): Cond | undefined =>
  (c.status?.conditions as Cond[] | undefined)?.find((x) => x.type === type);
const phases = (c: KVMConfig): string[] => (c.status?.cluster?.conditions ?? []).map((x) => x.type);

describe('status and nodeindexstatus handlers', () => {
  let mc: TestCluster;
  let wc: TestCluster;
  let client: KubeClient;
  let wcClient: KubeClient;
  let deps: KvmDeps;
  before(async () => {
    [mc, wc] = await Promise.all([startTestCluster(), startTestCluster()]);
    client = clientOf(mc);
    wcClient = clientOf(wc);
    await installKvmCrds(client);
    deps = testDeps(client, {
      workload: fixedWorkloadClusters({ st1: wcClient }),
      releases: [sampleRelease(), sampleRelease('14.2.0', '1.20.4')],
    });
  });
  after(async () => {
    await (deps.events as EventRecorder).stop();
    client.close();
    wcClient.close();
    await Promise.all([mc.stop(), wc.stop()]);
  });

  const fresh = (name: string): Promise<KVMConfig> => client.get<KVMConfig>(KVMConfigs, name, 'default');

  /** Runs ensureCreated on the stored object; returns the flags and the object after. */
  async function run(name: string, d: KvmDeps = deps) {
    const ctx = recordingContext();
    const before = await fresh(name);
    await statusHandler(d).ensureCreated(before, ctx);
    return { flags: ctx.flags, before, after: await fresh(name) };
  }

  async function setNode(name: string, labels: Record<string, string>, ready = true): Promise<void> {
    const status = { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
    try {
      await wcClient.get(Nodes, name);
      await wcClient.patch(Nodes, name, undefined, { metadata: { labels } }, 'merge');
    } catch {
      await wcClient.create(Nodes, { metadata: { name, labels } });
    }
    await wcClient.patch(Nodes, name, undefined, { status }, 'merge', { subresource: 'status' });
  }

  async function eventsFor(name: string): Promise<CoreEvent[]> {
    await (deps.events as EventRecorder).flush();
    const list = await client.list<CoreEvent>(Events, {
      namespace: 'default',
      fieldSelector: `involvedObject.name=${name}`,
    });
    return list.items;
  }

  it('walks Creating → Created → Updating → Updated from the workload nodes, writing only on change', async () => {
    await createKvmConfig(client, sampleKvmConfig({ id: 'st1' }), [sampleRelease(), sampleRelease('14.2.0', '1.20.4')]);

    let r = await run('st1');
    assert.ok(r.flags.reconciliationCanceled, 'a status write ends the loop');
    assert.deepEqual(phases(r.after), ['Creating']);
    assert.equal(conditionOf(r.after, 'SpecValid')?.status, 'True');
    assert.equal(conditionOf(r.after, 'WorkloadClusterReachable')?.status, 'True');
    assert.equal(conditionOf(r.after, 'Ready')?.status, 'False');

    r = await run('st1');
    assert.deepEqual(r.flags, {}, 'nothing changed: the chain goes on');
    assert.equal(r.after.metadata.resourceVersion, r.before.metadata.resourceVersion, 'no write');

    const v = { [Labels.operatorVersion]: OPERATOR_VERSION, [Labels.releaseVersion]: '14.1.0' };
    await setNode('master-m1', v);
    await setNode('worker-w1', v);
    r = await run('st1');
    assert.deepEqual(phases(r.after), ['Creating'], 'one node missing');
    assert.deepEqual(
      r.after.status?.cluster?.nodes?.map((n) => [n.name, n.version]),
      [
        ['master-m1', OPERATOR_VERSION],
        ['worker-w1', OPERATOR_VERSION],
      ],
    );

    await setNode('worker-w2', v, false);
    r = await run('st1');
    assert.ok(r.flags.reconciliationCanceled);
    assert.deepEqual(phases(r.after), ['Created']);
    assert.deepEqual(
      r.after.status?.cluster?.versions?.map((x) => x.semver),
      ['14.1.0'],
    );
    assert.equal(conditionOf(r.after, 'Ready')?.status, 'False', 'worker-w2 is NotReady');
    assert.ok(r.after.status?.cluster?.conditions?.[0].lastTransitionTime);

    await setNode('worker-w2', v, true);
    r = await run('st1');
    assert.equal(conditionOf(r.after, 'Ready')?.status, 'True');
    r = await run('st1');
    assert.equal(r.after.metadata.resourceVersion, r.before.metadata.resourceVersion, 'no write when converged');

    // A new release: Updating until every node carries it.
    await client.patch(
      KVMConfigs,
      'st1',
      'default',
      { metadata: { labels: { [Labels.releaseVersion]: '14.2.0' } } },
      'merge',
    );
    r = await run('st1');
    assert.deepEqual(phases(r.after), ['Created', 'Updating']);
    assert.equal(conditionOf(r.after, 'Ready')?.status, 'False');
    const v2 = { ...v, [Labels.releaseVersion]: '14.2.0' };
    await setNode('master-m1', v2);
    await setNode('worker-w1', v2);
    r = await run('st1');
    assert.deepEqual(phases(r.after), ['Created', 'Updating'], 'worker-w2 still runs 14.1.0');
    await setNode('worker-w2', v2);
    r = await run('st1');
    assert.deepEqual(phases(r.after), ['Created', 'Updated']);
    assert.deepEqual(
      r.after.status?.cluster?.versions?.map((x) => x.semver),
      ['14.1.0', '14.2.0'],
    );
    assert.equal(conditionOf(r.after, 'Ready')?.status, 'True');

    const reasons = (await eventsFor('st1')).map((e) => e.reason);
    for (const want of ['ClusterCreating', 'ClusterCreated', 'ClusterUpdating', 'ClusterUpdated'])
      assert.ok(reasons.includes(want), `event ${want} in ${reasons.join(',')}`);
  });

  it('reports an unreachable workload cluster without failing, and keeps the status stable', async () => {
    await createKvmConfig(client, sampleKvmConfig({ id: 'st2' }));
    const down = await startTestCluster();
    const downClient = clientOf(down);
    await down.stop();
    const d = { ...deps, workload: fixedWorkloadClusters({ st2: downClient }) };
    try {
      let r = await run('st2', d);
      assert.ok(r.flags.reconciliationCanceled, 'status written');
      const cond = conditionOf(r.after, 'WorkloadClusterReachable');
      assert.equal(cond?.status, 'False');
      assert.equal(cond?.reason, 'Unreachable');
      assert.equal(conditionOf(r.after, 'Ready')?.status, 'Unknown');
      assert.deepEqual(phases(r.after), ['Creating']);
      r = await run('st2', d);
      assert.deepEqual(r.flags, {});
      assert.equal(r.after.metadata.resourceVersion, r.before.metadata.resourceVersion);

      // Reachable (no nodes), then credentials gone: a Warning event on the transition.
      r = await run('st2', { ...deps, workload: fixedWorkloadClusters({ st2: wcClient }) });
      assert.equal(conditionOf(r.after, 'WorkloadClusterReachable')?.status, 'True');
      r = await run('st2', { ...deps, workload: fixedWorkloadClusters({}) });
      assert.equal(conditionOf(r.after, 'WorkloadClusterReachable')?.reason, 'CredentialsMissing');
      const events = await eventsFor('st2');
      assert.ok(events.some((e) => e.reason === 'WorkloadClusterUnavailable' && e.type === 'Warning'));
    } finally {
      downClient.close();
    }
  });

  it('an invalid spec: SpecValid False, a Warning event, the reconciliation cancelled', async () => {
    const c = sampleKvmConfig({ id: 'st3' });
    c.spec.kvm.workers?.pop();
    await createKvmConfig(client, c);
    let r = await run('st3');
    assert.match(r.flags.reconciliationCanceled ?? '', /invalid spec/);
    const valid = conditionOf(r.after, 'SpecValid');
    assert.equal(valid?.status, 'False');
    assert.equal(valid?.reason, 'ParallelListsMismatch');
    assert.match(valid?.message ?? '', /parallel lists/);
    assert.equal(conditionOf(r.after, 'Ready')?.status, 'False');
    assert.equal(r.after.status?.cluster, undefined, 'nothing else is computed from a broken spec');
    const events = await eventsFor('st3');
    assert.ok(events.some((e) => e.reason === 'InvalidSpec' && e.type === 'Warning'));

    r = await run('st3');
    assert.ok(r.flags.reconciliationCanceled, 'still cancelled');
    assert.equal(r.after.metadata.resourceVersion, r.before.metadata.resourceVersion, 'but nothing rewritten');

    // Fixed: valid again, and the lifecycle starts.
    await client.patch(KVMConfigs, 'st3', 'default', { spec: { cluster: { workers: [{ id: 'w1' }] } } }, 'merge');
    r = await run('st3');
    assert.equal(conditionOf(r.after, 'SpecValid')?.status, 'True');
    assert.deepEqual(phases(r.after), ['Creating']);
  });

  it('delete: sets Deleting once, cancelling and keeping the finalizer; then does nothing', async () => {
    const c = sampleKvmConfig({ id: 'st4' });
    c.metadata.finalizers = ['operatorkit.giantswarm.io/kvm-operator'];
    await createKvmConfig(client, c);
    await run('st4');
    await client.delete(KVMConfigs, 'st4', 'default');
    let obj = await fresh('st4');
    assert.ok(obj.metadata.deletionTimestamp);
    let ctx = recordingContext('delete');
    await statusHandler(deps).ensureDeleted(obj, ctx);
    assert.ok(ctx.flags.reconciliationCanceled);
    assert.ok(ctx.flags.finalizerKept);
    obj = await fresh('st4');
    assert.deepEqual(phases(obj), ['Creating', 'Deleting']);
    assert.equal(conditionOf(obj, 'Ready')?.reason, 'Deleting');

    ctx = recordingContext('delete');
    await statusHandler(deps).ensureDeleted(obj, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal((await fresh('st4')).metadata.resourceVersion, obj.metadata.resourceVersion);
    await client.patch(KVMConfigs, 'st4', 'default', { metadata: { finalizers: null } }, 'merge');
  });

  it('nodeindexstatus: allocates indexes, writes only on change, reallocates after a node change', async () => {
    await createKvmConfig(client, sampleKvmConfig({ id: 'ni1' }));
    const h = nodeIndexStatusHandler(deps);
    let ctx = recordingContext();
    await h.ensureCreated(await fresh('ni1'), ctx);
    assert.ok(ctx.flags.reconciliationCanceled);
    let obj = await fresh('ni1');
    assert.deepEqual(obj.status?.kvm?.nodeIndexes, { m1: 1, w1: 2, w2: 3 });

    ctx = recordingContext();
    await h.ensureCreated(obj, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal((await fresh('ni1')).metadata.resourceVersion, obj.metadata.resourceVersion);

    // w1 replaced by w3: w1's index is dropped, w3 does not take it in the same loop.
    await client.patch(
      KVMConfigs,
      'ni1',
      'default',
      { spec: { cluster: { workers: [{ id: 'w2' }, { id: 'w3' }] } } },
      'merge',
    );
    ctx = recordingContext();
    await h.ensureCreated(await fresh('ni1'), ctx);
    assert.ok(ctx.flags.reconciliationCanceled);
    obj = await fresh('ni1');
    assert.deepEqual(obj.status?.kvm?.nodeIndexes, { m1: 1, w2: 3, w3: 4 });

    // A stale object (older resourceVersion) is refused rather than allocating from an old map.
    const stale: KVMConfig = structuredClone(obj);
    await client.patch(KVMConfigs, 'ni1', 'default', { metadata: { labels: { touched: 'yes' } } }, 'merge');
    stale.spec.cluster.workers = [{ id: 'w2' }, { id: 'w3' }, { id: 'w4' }];
    stale.spec.kvm.workers = [...(stale.spec.kvm.workers ?? []), { cpus: 1, memory: '1G' }];
    await assert.rejects(
      h.ensureCreated(stale, recordingContext()),
      (e: unknown) => (e as { code?: number }).code === 409,
    );

    ctx = recordingContext('delete');
    await h.ensureDeleted(obj, ctx);
    assert.deepEqual(ctx.flags, {});
  });
});
