// The config map handler: the diff (only data and our labels count), and runs against an embedded
// control plane: creation, zero writes on an unchanged spec, update on a release bump or a
// tampered object, scale-in, waiting for node indexes, a missing Release, and delete.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps } from '../../../../src/runtime/index.ts';
import type { KubeClient } from '../../../../src/runtime/index.ts';
import type { KVMConfig } from '../../../../src/kvm/api/index.ts';
import {
  configMapHandler,
  configMapUpdate,
  isConfigMapModified,
} from '../../../../src/kvm/handlers/cluster/configmap.ts';
import type { ConfigMap } from '../../../../src/kvm/handlers/cluster/configmap.ts';
import { nodeLabelsFromUserData, nodeTaintsFromUserData } from '../../../../src/kvm/handlers/cluster/ignition.ts';
import { ReleaseNotFoundError } from '../../../../src/kvm/handlers/cluster/prerequisites.ts';
import { startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { clientOf, installKvmCrds, recordingContext, sampleKvmConfig, sampleRelease, testDeps } from '../../helpers.ts';
import { prepareCluster, spyWrites, withIndexes } from './node-fixtures.ts';

const LABELS = { cluster: 'abc12', 'giantswarm.io/managed-by': 'kvm-operator' };

function cm(o: { data?: Record<string, string>; labels?: Record<string, string>; meta?: object } = {}): ConfigMap {
  return {
    metadata: { name: 'worker-abc12-w1', labels: o.labels ?? LABELS, ...o.meta },
    data: o.data ?? { user_data: 'AAA' },
  };
}

describe('isConfigMapModified', () => {
  const cases: { name: string; current: ConfigMap; want: boolean }[] = [
    { name: 'identical', current: cm(), want: false },
    {
      name: 'server metadata and namespace do not count (upstream rewrote every loop)',
      current: cm({ meta: { namespace: 'abc12', resourceVersion: '42', uid: 'u', creationTimestamp: 'now' } }),
      want: false,
    },
    { name: 'labels others added do not count', current: cm({ labels: { ...LABELS, team: 'x' } }), want: false },
    { name: 'user data differs', current: cm({ data: { user_data: 'BBB' } }), want: true },
    { name: 'extra data key', current: cm({ data: { user_data: 'AAA', x: 'y' } }), want: true },
    { name: 'no data', current: { metadata: { name: 'worker-abc12-w1', labels: LABELS } }, want: true },
    { name: 'one of our labels missing', current: cm({ labels: { cluster: 'abc12' } }), want: true },
    { name: 'one of our labels changed', current: cm({ labels: { ...LABELS, cluster: 'other' } }), want: true },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(isConfigMapModified(tc.current, cm()), tc.want));

  it('an update keeps the resourceVersion and foreign labels', () => {
    const current = cm({ labels: { team: 'x' }, data: { user_data: 'old' }, meta: { resourceVersion: '9' } });
    const got = configMapUpdate(current, cm());
    assert.equal(got.metadata.resourceVersion, '9');
    assert.deepEqual(got.metadata.labels, { team: 'x', ...LABELS });
    assert.deepEqual(got.data, { user_data: 'AAA' });
  });
});

describe('configmap handler', () => {
  let cp: TestCluster;
  let client: KubeClient;
  const releases = [sampleRelease(), sampleRelease('14.2.0', '1.20.1')];
  before(async () => {
    cp = await startTestCluster();
    client = clientOf(cp);
    await installKvmCrds(client);
  });
  after(async () => {
    client?.close();
    await cp?.stop();
  });

  // The namespace's ConfigMaps but the root CA publisher's kube-root-ca.crt, which every namespace holds.
  const list = async (ns: string) =>
    (await client.list<ConfigMap>(ConfigMaps, { namespace: ns, fieldSelector: 'metadata.name!=kube-root-ca.crt' }))
      .items;
  const versions = async (ns: string) =>
    Object.fromEntries((await list(ns)).map((x) => [x.metadata.name, x.metadata.resourceVersion]));
  const run = async (c: KVMConfig, rel = releases, via = client) => {
    const ctx = recordingContext();
    await configMapHandler(testDeps(via, { releases: rel })).ensureCreated(c, ctx);
    return ctx.flags;
  };

  it('creates one config map per node, of the right shape, then never rewrites an unchanged one', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'cmcreate' }));
    assert.deepEqual(await run(c), {});
    const got = await list('cmcreate');
    assert.deepEqual(got.map((x) => x.metadata.name).sort(), [
      'master-cmcreate-m1',
      'worker-cmcreate-w1',
      'worker-cmcreate-w2',
    ]);
    for (const x of got) {
      assert.deepEqual(x.metadata.labels, {
        cluster: 'cmcreate',
        customer: 'acme',
        'giantswarm.io/cluster': 'cmcreate',
        'giantswarm.io/organization': 'acme',
        'giantswarm.io/managed-by': 'kvm-operator',
      });
      const role = (x.metadata.name as string).split('-')[0];
      const labels = nodeLabelsFromUserData(x.data?.user_data ?? '');
      assert.equal(labels.role, role);
      assert.equal(labels['release.giantswarm.io/version'], '14.1.0');
      assert.equal(nodeTaintsFromUserData(x.data?.user_data ?? '').length, role === 'master' ? 1 : 0);
    }
    const rv = await versions('cmcreate');
    const spy = spyWrites(client);
    await run(c, releases, spy.client);
    await run(structuredClone(c), releases, spy.client);
    assert.deepEqual(spy.writes, [], 'zero writes on an unchanged spec');
    assert.deepEqual(await versions('cmcreate'), rv);
  });

  it('rewrites the data on a release bump, and restores a tampered config map', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'cmupdate', workers: 1 }));
    await run(c);
    const rv = await versions('cmupdate');
    const bumped = { ...c, metadata: { ...c.metadata, labels: { ...c.metadata.labels } } };
    bumped.metadata.labels['release.giantswarm.io/version'] = '14.2.0';
    await run(bumped);
    const after = await list('cmupdate');
    for (const x of after) {
      assert.notEqual(x.metadata.resourceVersion, rv[x.metadata.name as string]);
      assert.equal(nodeLabelsFromUserData(x.data?.user_data ?? '')['release.giantswarm.io/version'], '14.2.0');
    }
    const victim = after[0];
    await client.update(ConfigMaps, { ...victim, data: { user_data: 'tampered' } });
    await run(bumped);
    const restored = (await list('cmupdate')).find((x) => x.metadata.name === victim.metadata.name);
    assert.equal(restored?.data?.user_data, victim.data?.user_data);
  });

  it('scale-in deletes the config maps of removed nodes only', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'cmscale' }));
    await run(c);
    const rv = await versions('cmscale');
    await run(withIndexes({ ...sampleKvmConfig({ id: 'cmscale', workerIds: ['w2'] }), status: c.status }));
    const now = await versions('cmscale');
    assert.deepEqual(Object.keys(now).sort(), ['master-cmscale-m1', 'worker-cmscale-w2']);
    assert.equal(now['worker-cmscale-w2'], rv['worker-cmscale-w2'], 'the remaining worker is untouched');
  });

  it('waits for node indexes: cancels itself and writes nothing', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'cmnoidx' }));
    const partial = { ...c, status: { kvm: { nodeIndexes: { m1: 1 } } } };
    const flags = await run(partial);
    assert.match(flags.handlerCanceled ?? '', /w1, w2 have no node index yet/);
    assert.equal((await list('cmnoidx')).length, 0);
  });

  it('refuses node lists that disagree (never scales in on a half-edited spec)', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'cmbad' }));
    await run(c);
    const bad = structuredClone(c);
    bad.spec.kvm.workers = bad.spec.kvm.workers?.slice(0, 1);
    const flags = await run(bad);
    assert.match(flags.handlerCanceled ?? '', /parallel lists/);
    assert.equal((await list('cmbad')).length, 3);
  });

  it('a missing Release is an error; delete does nothing and needs no Release', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'cmnorel' }));
    await assert.rejects(run(c, []), ReleaseNotFoundError);
    assert.equal((await list('cmnorel')).length, 0);
    const ctx = recordingContext('delete');
    await configMapHandler(testDeps(client, { releases: [] })).ensureDeleted(c, ctx);
    assert.deepEqual(ctx.flags, {});
  });
});
