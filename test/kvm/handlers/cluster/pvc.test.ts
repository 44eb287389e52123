// The etcd PVC handler: desired claims per storage type, scale-in (never a mounted claim), the
// hostPath case left alone, and the delete path waiting for the namespace's pods.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PersistentVolumeClaims, Pods } from '../../../../src/runtime/index.ts';
import type { KubeClient } from '../../../../src/runtime/index.ts';
import type { KVMConfig } from '../../../../src/kvm/api/index.ts';
import { resolveKvmOptions } from '../../../../src/kvm/options.ts';
import { PVC_RECHECK_MS, claimsInUse, desiredPvcs, pvcHandler } from '../../../../src/kvm/handlers/cluster/pvc.ts';
import type { PersistentVolumeClaim } from '../../../../src/kvm/handlers/cluster/pvc.ts';
import { startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { clientOf, installKvmCrds, recordingContext, sampleKvmConfig, testDeps } from '../../helpers.ts';
import { prepareCluster } from './node-fixtures.ts';

function persistent(c: KVMConfig): KVMConfig {
  return { ...c, spec: { ...c.spec, kvm: { ...c.spec.kvm, k8sKVM: { storageType: 'persistentVolume' } } } };
}

describe('desiredPvcs', () => {
  const options = resolveKvmOptions({ storageClass: 'fast' });
  const cases: { name: string; c: KVMConfig; want: string[] }[] = [
    { name: 'hostPath: none', c: sampleKvmConfig({ masters: 3 }), want: [] },
    {
      name: 'storage type unset: none',
      c: { ...sampleKvmConfig(), spec: { ...sampleKvmConfig().spec, kvm: {} } },
      want: [],
    },
    { name: 'persistentVolume, 1 master', c: persistent(sampleKvmConfig()), want: ['pvc-master-etcd-abc12-0'] },
    {
      name: 'persistentVolume, 3 masters (numbered from 0, as the deployments mount them)',
      c: persistent(sampleKvmConfig({ masters: 3 })),
      want: ['pvc-master-etcd-abc12-0', 'pvc-master-etcd-abc12-1', 'pvc-master-etcd-abc12-2'],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = desiredPvcs(tc.c, options);
      assert.deepEqual(
        got.map((p) => p.metadata.name),
        tc.want,
      );
      for (const p of got) {
        assert.deepEqual(p.spec, {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '15Gi' } },
          storageClassName: 'fast',
        });
        assert.equal(p.metadata.labels?.['giantswarm.io/managed-by'], 'kvm-operator');
        assert.equal(p.metadata.namespace, 'abc12');
      }
    });
  }
});

describe('claimsInUse', () => {
  it('collects claim names of pod volumes', () => {
    const pods = [
      { metadata: {}, spec: { volumes: [{ persistentVolumeClaim: { claimName: 'a' } }, {}] } },
      { metadata: {}, spec: { volumes: [{ persistentVolumeClaim: { claimName: 'b' } }] } },
      { metadata: {} },
    ];
    assert.deepEqual([...claimsInUse(pods)].sort(), ['a', 'b']);
  });
});

describe('pvc handler', () => {
  let cp: TestCluster;
  let client: KubeClient;
  before(async () => {
    cp = await startTestCluster();
    client = clientOf(cp);
    await installKvmCrds(client);
  });
  after(async () => {
    client?.close();
    await cp?.stop();
  });

  const names = async (ns: string) =>
    (await client.list<PersistentVolumeClaim>(PersistentVolumeClaims, { namespace: ns })).items
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
  const run = async (c: KVMConfig, event: 'update' | 'delete' = 'update') => {
    const ctx = recordingContext(event);
    const h = pvcHandler(testDeps(client));
    await (event === 'update' ? h.ensureCreated(c, ctx) : h.ensureDeleted(c, ctx));
    return ctx.flags;
  };
  const podMounting = (ns: string, claim: string) =>
    client.create(Pods, {
      metadata: { name: `uses-${claim}`, namespace: ns },
      spec: {
        containers: [{ name: 'c', image: 'busybox' }],
        volumes: [{ name: 'etcd', persistentVolumeClaim: { claimName: claim } }],
      },
    });

  it('creates one claim per master, and scale-in deletes only claims no pod mounts', async () => {
    const c = persistent(await prepareCluster(client, sampleKvmConfig({ id: 'pvscale', masters: 3 })));
    assert.deepEqual(await run(c), {});
    assert.deepEqual(await names('pvscale'), [
      'pvc-master-etcd-pvscale-0',
      'pvc-master-etcd-pvscale-1',
      'pvc-master-etcd-pvscale-2',
    ]);
    await podMounting('pvscale', 'pvc-master-etcd-pvscale-2');
    const one = persistent({ ...sampleKvmConfig({ id: 'pvscale', masters: 1 }), status: c.status });
    const flags = await run(one);
    assert.equal(flags.requeueAfter, PVC_RECHECK_MS);
    assert.deepEqual(await names('pvscale'), ['pvc-master-etcd-pvscale-0', 'pvc-master-etcd-pvscale-2']);
    await client.delete(Pods, 'uses-pvc-master-etcd-pvscale-2', 'pvscale', { gracePeriodSeconds: 0 });
    assert.deepEqual(await run(one), {});
    assert.deepEqual(await names('pvscale'), ['pvc-master-etcd-pvscale-0']);
  });

  it('leaves a hostPath cluster alone, even with claims of ours in its namespace', async () => {
    const c = await prepareCluster(client, sampleKvmConfig({ id: 'pvhost' }));
    await run(persistent(c));
    const flags = await run(c);
    assert.match(flags.handlerCanceled ?? '', /not persistentVolume/);
    assert.deepEqual(await names('pvhost'), ['pvc-master-etcd-pvhost-0']);
  });

  it('on delete waits for the last pod, then deletes the claims', async () => {
    const c = persistent(await prepareCluster(client, sampleKvmConfig({ id: 'pvdelete' })));
    await run(c);
    await podMounting('pvdelete', 'pvc-master-etcd-pvdelete-0');
    const waiting = await run(c, 'delete');
    assert.match(waiting.handlerCanceled ?? '', /1 pod\(s\) left/);
    assert.match(waiting.finalizerKept ?? '', /etcd claims wait/);
    assert.deepEqual(await names('pvdelete'), ['pvc-master-etcd-pvdelete-0']);
    await client.delete(Pods, 'uses-pvc-master-etcd-pvdelete-0', 'pvdelete', { gracePeriodSeconds: 0 });
    assert.deepEqual(await run(c, 'delete'), {});
    assert.deepEqual(await names('pvdelete'), []);
    assert.deepEqual(await run(c, 'delete'), {}, 'nothing left: done');
  });
});
