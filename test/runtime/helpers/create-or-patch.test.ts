import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps } from '../../../src/runtime/client/resources.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { createOrPatch, patchStatus, serverSideApply } from '../../../src/runtime/helpers/index.ts';
import type { HelperClient } from '../../../src/runtime/helpers/index.ts';
import { FakeApi } from './fake-api.ts';

type Cm = KubeObject & { data?: Record<string, string>; status?: { phase?: string; replicas?: number } };

describe('createOrPatch', () => {
  it('creates when missing, then writes nothing while nothing changes', async () => {
    const api = new FakeApi();
    const desired: Cm = { metadata: { name: 'a', namespace: 'd' } };
    const mutate = (o: Cm): void => {
      o.data = { ...o.data, key: 'v' };
      o.metadata.labels = { ...o.metadata.labels, app: 'x' };
    };
    const r1 = await createOrPatch(api, ConfigMaps, desired, mutate);
    assert.equal(r1.result, 'created');
    assert.deepEqual(r1.object.data, { key: 'v' });
    const r2 = await createOrPatch(api, ConfigMaps, desired, mutate);
    assert.equal(r2.result, 'unchanged');
    assert.equal(api.writes.length, 1, 'no blind update');
  });

  it('patches only the difference, guarded by the resourceVersion, and keeps fields others own', async () => {
    const api = new FakeApi();
    api.seed({
      metadata: { name: 'a', namespace: 'd', labels: { app: 'x', team: 'other' } },
      data: { key: 'v', theirs: '1' },
    } as Cm);
    const r = await createOrPatch<Cm>(api, ConfigMaps, { metadata: { name: 'a', namespace: 'd' } }, (o) => {
      o.data = { ...o.data, key: 'v2' };
      delete o.metadata.labels?.app;
    });
    assert.equal(r.result, 'updated');
    const body = api.writes[0].body as { data: unknown; metadata: { labels: unknown; resourceVersion: string } };
    assert.deepEqual(body.data, { key: 'v2' });
    assert.deepEqual(body.metadata.labels, { app: null });
    assert.ok(body.metadata.resourceVersion);
    assert.deepEqual((api.stored('d', 'a') as Cm).data, { key: 'v2', theirs: '1' });
  });

  it('retries on conflict by re-reading and re-applying the mutation', async () => {
    const api = new FakeApi();
    api.seed({ metadata: { name: 'a', namespace: 'd' }, data: { n: '0' } } as Cm);
    let raced = false;
    api.beforeWrite = () => {
      if (raced) return;
      raced = true;
      api.touch('d', 'a', (o) => ((o as Cm).data = { n: '0', other: 'x' }));
    };
    let calls = 0;
    const r = await createOrPatch<Cm>(api, ConfigMaps, { metadata: { name: 'a', namespace: 'd' } }, (o) => {
      calls++;
      o.data = { ...o.data, n: '1' };
    });
    assert.equal(r.result, 'updated');
    assert.equal(calls, 2);
    assert.deepEqual((api.stored('d', 'a') as Cm).data, { n: '1', other: 'x' });
  });

  it('writes status through the status subresource, separately', async () => {
    const api = new FakeApi();
    api.seed({ metadata: { name: 'a', namespace: 'd' }, data: {} } as Cm);
    const r = await createOrPatch<Cm>(api, ConfigMaps, { metadata: { name: 'a', namespace: 'd' } }, (o) => {
      o.status = { phase: 'Ready' };
    });
    assert.equal(r.result, 'updatedStatusOnly');
    assert.equal(api.writes[0].subresource, 'status');
    assert.deepEqual((api.stored('d', 'a') as Cm).status, { phase: 'Ready' });
    await assert.rejects(
      createOrPatch<Cm>(api, ConfigMaps, { metadata: { name: 'a', namespace: 'd' } }, (o) => {
        o.metadata.name = 'b';
      }),
      /must not change/,
    );
  });
});

describe('patchStatus', () => {
  it('sends a merge patch of the status change only, or nothing', async () => {
    const api = new FakeApi();
    const cm = api.seed({
      metadata: { name: 'a', namespace: 'd' },
      status: { phase: 'Pending', replicas: 1 },
    } as Cm) as Cm;
    const same = await patchStatus(api, ConfigMaps, cm, (o) => {
      o.status = { phase: 'Pending', replicas: 1 };
    });
    assert.equal(same.changed, false);
    assert.equal(api.writes.length, 0);
    const r = await patchStatus(
      api,
      ConfigMaps,
      cm,
      (o) => {
        o.status!.replicas = 3;
      },
      { optimisticLock: true },
    );
    assert.equal(r.changed, true);
    assert.deepEqual(api.writes[0], {
      verb: 'patch',
      name: 'a',
      patchType: 'merge',
      subresource: 'status',
      body: { status: { replicas: 3 }, metadata: { resourceVersion: cm.metadata.resourceVersion } },
    });
  });
});

describe('serverSideApply', () => {
  it('sends the intent as an apply patch, forced, without server-owned metadata', async () => {
    const calls: unknown[][] = [];
    const client = { patch: async (...args: unknown[]) => (calls.push(args), args[3]) } as unknown as HelperClient;
    await serverSideApply(
      client,
      ConfigMaps,
      {
        metadata: { name: 'a', namespace: 'd', resourceVersion: '5', managedFields: [], uid: 'u' },
        data: { k: 'v' },
      } as Cm,
      {
        fieldManager: 'podset-controller',
      },
    );
    assert.deepEqual(calls[0].slice(1), [
      'a',
      'd',
      { metadata: { name: 'a', namespace: 'd' }, data: { k: 'v' } },
      'apply',
      { fieldManager: 'podset-controller', force: true },
    ]);
  });
});
