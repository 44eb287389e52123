// The deployment handler against an embedded control plane whose Deployment controller, scheduler
// and simulated kubelets run the node pods: creation, scale-in, the throttled rollout of a release
// bump (one deployment per call, masters first, workers gated on the workload masters), and delete.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps, Deployments, Events, Nodes, Pods } from '../../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../../src/runtime/index.ts';
import type { KVMConfig } from '../../../../src/kvm/api/index.ts';
import type { KvmDeps } from '../../../../src/kvm/deps.ts';
import { configMapHandler } from '../../../../src/kvm/handlers/cluster/configmap.ts';
import { ROLLOUT_RECHECK_MS, deploymentHandler } from '../../../../src/kvm/handlers/cluster/deployment.ts';
import { ReleaseNotFoundError } from '../../../../src/kvm/handlers/cluster/prerequisites.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import { fixedWorkloadClusters, recordingContext, sampleKvmConfig, sampleRelease, testDeps } from '../../helpers.ts';
import {
  deploymentsIn,
  prepareCluster,
  spyWrites,
  startNodeTestEnv,
  waitRolledOut,
  withIndexes,
} from './node-fixtures.ts';
import type { NodeTestEnv } from './node-fixtures.ts';

const RELEASES = [sampleRelease(), sampleRelease('14.2.0', '1.20.1')];

let env: NodeTestEnv;
before(async () => {
  env = await startNodeTestEnv();
});
after(async () => {
  await env?.stop();
});

function depsFor(
  id: string,
  opts: { reachable?: boolean; releases?: typeof RELEASES; client?: KubeClient } = {},
): KvmDeps {
  const workload = fixedWorkloadClusters(opts.reachable === false ? {} : { [id]: env.wcClient });
  return testDeps(opts.client ?? env.client, { workload, releases: opts.releases ?? RELEASES });
}

/** The configmap then the deployment handler, as the chain runs them. */
async function reconcile(deps: KvmDeps, c: KVMConfig) {
  await configMapHandler(deps).ensureCreated(c, recordingContext());
  const ctx = recordingContext();
  await deploymentHandler(deps).ensureCreated(c, ctx);
  return ctx.flags;
}

/** The same cluster moved to another release (the KVMConfig label), node indexes kept. */
function bumped(c: KVMConfig, release: string): KVMConfig {
  return {
    ...c,
    metadata: { ...c.metadata, labels: { ...c.metadata.labels, 'release.giantswarm.io/version': release } },
  };
}

async function releasesOf(client: KubeClient, ns: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const d of await deploymentsIn(client, ns))
    out[d.metadata.name as string] = d.metadata.annotations?.['giantswarm.io/release-version'] ?? '';
  return out;
}

async function eventsOf(client: KubeClient, name: string, reason: string): Promise<string[]> {
  const list = await client.list<
    KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }
  >(Events, { namespace: 'default' });
  return list.items.filter((e) => e.reason === reason && e.involvedObject?.name === name).map((e) => e.message ?? '');
}

describe('deployment handler', () => {
  it('creates one deployment per node, and rewrites nothing on an unchanged spec', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'dcreate' }));
    const flags = await reconcile(depsFor('dcreate'), c);
    assert.deepEqual(flags, {});
    const ds = await deploymentsIn(env.client, 'dcreate');
    assert.deepEqual(ds.map((d) => d.metadata.name).sort(), ['master-m1', 'worker-w1', 'worker-w2']);
    const configMaps = (await env.client.list(ConfigMaps, { namespace: 'dcreate' })).items.map((x) => x.metadata.name);
    for (const d of ds) {
      assert.equal(d.metadata.labels?.['giantswarm.io/managed-by'], 'kvm-operator');
      assert.equal(d.metadata.annotations?.['giantswarm.io/release-version'], '14.1.0');
      assert.equal(d.spec.strategy.type, 'Recreate');
      const cm = d.spec.template.spec.volumes.find((v) => v.name === 'cloud-config')?.configMap?.name;
      assert.ok(cm && configMaps.includes(cm), `${d.metadata.name} mounts an existing config map (${cm})`);
    }
    await waitRolledOut(env.client, 'dcreate');
    const generations = (await deploymentsIn(env.client, 'dcreate')).map((d) => [
      d.metadata.name,
      d.metadata.generation,
    ]);
    assert.deepEqual(await reconcile(depsFor('dcreate'), c), {});
    const again = (await deploymentsIn(env.client, 'dcreate')).map((d) => [d.metadata.name, d.metadata.generation]);
    assert.deepEqual(again, generations);
  });

  it('scale-in deletes the removed node with Foreground propagation, and nothing else', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'dscale' }));
    await reconcile(depsFor('dscale'), c);
    const foreign = { metadata: { name: 'foreign', namespace: 'dscale' }, spec: foreignSpec() };
    const otherCluster = {
      metadata: {
        name: 'worker-w1-other',
        namespace: 'dscale',
        labels: { 'giantswarm.io/managed-by': 'kvm-operator', 'giantswarm.io/cluster': 'other' },
      },
      spec: foreignSpec(),
    };
    await env.client.create(Deployments, foreign);
    await env.client.create(Deployments, otherCluster);
    const before = new Map((await deploymentsIn(env.client, 'dscale')).map((d) => [d.metadata.name, d.metadata.uid]));
    // Workers w1, w2 → w2: the first worker goes, whatever position w2 now has.
    const scaled = withIndexes({ ...sampleKvmConfig({ id: 'dscale', workerIds: ['w2'] }), status: c.status });
    const spy = spyWrites(env.client);
    await reconcile(depsFor('dscale', { client: spy.client }), scaled);
    assert.deepEqual(spy.writes, [
      { verb: 'delete', type: 'ConfigMap', name: 'worker-dscale-w1', propagationPolicy: undefined },
      { verb: 'delete', type: 'Deployment', name: 'worker-w1', propagationPolicy: 'Foreground' },
    ]);
    const after = await deploymentsIn(env.client, 'dscale');
    const w1 = after.find((d) => d.metadata.name === 'worker-w1');
    assert.ok(!w1 || w1.metadata.deletionTimestamp, 'worker-w1 is gone or going');
    for (const name of ['master-m1', 'worker-w2', 'foreign', 'worker-w1-other']) {
      const d = after.find((x) => x.metadata.name === name);
      assert.ok(d && !d.metadata.deletionTimestamp, `${name} kept`);
      assert.equal(d.metadata.uid, before.get(name));
    }
    const cms = (await env.client.list(ConfigMaps, { namespace: 'dscale' })).items.map((x) => x.metadata.name);
    assert.ok(!cms.includes('worker-dscale-w1'));
    assert.ok(cms.includes('worker-dscale-w2'));
  });

  it('a release bump rolls one deployment per call, masters first, workers gated on the workload masters', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'droll' }));
    const deps = depsFor('droll');
    await reconcile(deps, c);
    await waitRolledOut(env.client, 'droll');
    const next = bumped(c, '14.2.0');

    const first = await reconcile(deps, next);
    assert.equal(first.requeueAfter, ROLLOUT_RECHECK_MS);
    assert.deepEqual(await releasesOf(env.client, 'droll'), {
      'master-m1': '14.2.0',
      'worker-w1': '14.1.0',
      'worker-w2': '14.1.0',
    });
    // The master is rolling: nothing else moves.
    await reconcile(deps, next);
    assert.equal((await releasesOf(env.client, 'droll'))['worker-w1'], '14.1.0');

    await waitRolledOut(env.client, 'droll');
    await reconcile(deps, next);
    assert.deepEqual(await releasesOf(env.client, 'droll'), {
      'master-m1': '14.2.0',
      'worker-w1': '14.2.0',
      'worker-w2': '14.1.0',
    });

    await waitRolledOut(env.client, 'droll');
    await env.wcClient.patch(Nodes, env.wcMaster, undefined, { spec: { unschedulable: true } }, 'merge');
    try {
      await reconcile(deps, next);
      assert.equal((await releasesOf(env.client, 'droll'))['worker-w2'], '14.1.0', 'held back by the cordoned master');
    } finally {
      await env.wcClient.patch(Nodes, env.wcMaster, undefined, { spec: { unschedulable: false } }, 'merge');
    }
    await reconcile(deps, next);
    assert.equal((await releasesOf(env.client, 'droll'))['worker-w2'], '14.2.0');

    await waitRolledOut(env.client, 'droll');
    const done = await reconcile(deps, next);
    assert.equal(done.requeueAfter, undefined, 'nothing pending');
    const pods = await deploymentsIn(env.client, 'droll');
    for (const d of pods) assert.equal(d.spec.template.metadata.labels['release.giantswarm.io/version'], '14.2.0');
    const messages = await eventually(
      async () => {
        const m = await eventsOf(env.client, 'droll', 'NodeUpdating');
        return ['master-m1', 'worker-w1', 'worker-w2'].every((n) => m.some((x) => x.includes(n))) && m;
      },
      { what: 'NodeUpdating events' },
    );
    assert.ok(messages);
  });

  it('does not roll while the workload cluster is unreachable, and says so', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'dunreach', workers: 1 }));
    await reconcile(depsFor('dunreach'), c);
    await waitRolledOut(env.client, 'dunreach');
    const flags = await reconcile(depsFor('dunreach', { reachable: false }), bumped(c, '14.2.0'));
    assert.equal(flags.requeueAfter, ROLLOUT_RECHECK_MS);
    assert.deepEqual(await releasesOf(env.client, 'dunreach'), { 'master-m1': '14.1.0', 'worker-w1': '14.1.0' });
    await eventually(async () => (await eventsOf(env.client, 'dunreach', 'WorkloadClusterUnavailable')).length > 0, {
      what: 'WorkloadClusterUnavailable event',
    });
  });

  it('waits for node indexes: cancels itself and creates nothing', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'dnoidx' }));
    const ctx = recordingContext();
    await deploymentHandler(depsFor('dnoidx')).ensureCreated({ ...c, status: {} }, ctx);
    assert.match(ctx.flags.handlerCanceled ?? '', /m1, w1, w2 have no node index/);
    assert.equal((await deploymentsIn(env.client, 'dnoidx')).length, 0);
  });

  it('a missing Release is an error with a Warning event', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'dnorel', release: '99.0.0' }));
    await assert.rejects(
      deploymentHandler(depsFor('dnorel')).ensureCreated(c, recordingContext()),
      (e: Error) => e instanceof ReleaseNotFoundError && /Release v99\.0\.0 not found/.test(e.message),
    );
    assert.equal((await deploymentsIn(env.client, 'dnorel')).length, 0);
    await eventually(async () => (await eventsOf(env.client, 'dnorel', 'ReleaseNotFound')).length > 0, {
      what: 'ReleaseNotFound event',
    });
  });

  it('delete removes ours with Foreground propagation, needs no Release, and leaves foreign ones', async () => {
    const c = await prepareCluster(env.client, sampleKvmConfig({ id: 'ddelete', workers: 1 }));
    await reconcile(depsFor('ddelete'), c);
    await env.client.create(Deployments, { metadata: { name: 'foreign', namespace: 'ddelete' }, spec: foreignSpec() });
    const ctx = recordingContext('delete');
    const spy = spyWrites(env.client);
    await deploymentHandler(depsFor('ddelete', { releases: [], client: spy.client })).ensureDeleted(c, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.deepEqual(spy.writes, [
      { verb: 'delete', type: 'Deployment', name: 'master-m1', propagationPolicy: 'Foreground' },
      { verb: 'delete', type: 'Deployment', name: 'worker-w1', propagationPolicy: 'Foreground' },
    ]);
    // Foreground: the Deployments wait for their node pods, whose preStop hook holds them for the
    // 300 s grace period until the drainer (not running here) finishes them with grace 0. Do its part.
    await eventually(
      async () => {
        const pods = (await env.client.list(Pods, { namespace: 'ddelete' })).items;
        const terminating = pods.filter((p) => p.metadata.deletionTimestamp);
        for (const p of terminating)
          await env.client
            .delete(Pods, p.metadata.name as string, 'ddelete', { gracePeriodSeconds: 0 })
            .catch(() => undefined);
        return pods.length === 0;
      },
      { what: 'the node pods terminating, then finished' },
    );
    await eventually(
      async () => (await deploymentsIn(env.client, 'ddelete')).map((d) => d.metadata.name).join() === 'foreign',
      { what: 'only the foreign deployment left' },
    );
  });
});

function foreignSpec(): object {
  return {
    replicas: 0,
    selector: { matchLabels: { app: 'foreign' } },
    template: { metadata: { labels: { app: 'foreign' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  };
}
