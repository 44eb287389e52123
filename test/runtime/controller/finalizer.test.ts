// finalizer(): the Apply/Cleanup protocol around a reconcile, against the embedded control plane
// (real guarded JSON patches, real deletion with finalizers).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps, finalizer, isNotFound } from '../../../src/runtime/index.ts';
import type { CleanupResult, KubeClient, KubeObject, ReconcileResult } from '../../../src/runtime/index.ts';
import { startTestCluster } from '../../helpers/runtime-cluster.ts';
import type { TestCluster } from '../../helpers/runtime-cluster.ts';

const OURS = 'example.com/cleanup';
const OTHER = 'other.io/keep';

describe('finalizer()', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let n = 0;

  before(async () => {
    cluster = await startTestCluster();
    client = cluster.client();
  });
  after(async () => {
    await cluster.stop();
  });

  const live = (name: string): Promise<KubeObject> => client.get(ConfigMaps, name, 'default');

  async function create(finalizers: string[]): Promise<string> {
    const name = `cm-${++n}`;
    await client.create(ConfigMaps, { metadata: { name, namespace: 'default', finalizers } });
    return name;
  }

  /** Runs finalizer() on the object as the server has it now, recording which handler ran. */
  async function run(
    name: string,
    handlers: {
      apply?: (o: KubeObject) => Promise<ReconcileResult | void>;
      cleanup?: (o: KubeObject) => Promise<CleanupResult | void>;
    } = {},
  ): Promise<{ calls: string[]; result: ReconcileResult | void }> {
    const calls: string[] = [];
    const result = await finalizer({ client, type: ConfigMaps, name: OURS }, await live(name), {
      apply: async (o) => {
        calls.push(`apply:${o.metadata.name}`);
        return handlers.apply?.(o);
      },
      cleanup: async (o) => {
        calls.push(`cleanup:${o.metadata.name}`);
        return handlers.cleanup?.(o);
      },
    });
    return { calls, result };
  }

  it('adds our finalizer first, after the others, and stops there', async () => {
    const name = await create([OTHER]);
    const { calls, result } = await run(name);
    assert.deepEqual(calls, [], 'neither apply nor cleanup before the finalizer is on');
    assert.equal(result, undefined);
    assert.deepEqual((await live(name)).metadata.finalizers, [OTHER, OURS]);
  });

  it('calls apply on a live object that has it, and returns its result', async () => {
    const name = await create([OURS]);
    const before = await live(name);
    const { calls, result } = await run(name, { apply: async () => ({ requeueAfter: 1234 }) });
    assert.deepEqual(calls, [`apply:${name}`]);
    assert.deepEqual(result, { requeueAfter: 1234 });
    assert.equal((await live(name)).metadata.resourceVersion, before.metadata.resourceVersion, 'no write');
  });

  it('on delete: cleanup, then only our finalizer is removed', async () => {
    const name = await create([OTHER, OURS]);
    await client.delete(ConfigMaps, name, 'default');
    const { calls, result } = await run(name);
    assert.deepEqual(calls, [`cleanup:${name}`]);
    assert.equal(result, undefined);
    const left = await live(name);
    assert.deepEqual(left.metadata.finalizers, [OTHER], 'the foreign finalizer is untouched');
    assert.ok(left.metadata.deletionTimestamp);
  });

  it('on delete with ours the last: the object goes once cleanup succeeded', async () => {
    const name = await create([OURS]);
    await client.delete(ConfigMaps, name, 'default');
    assert.deepEqual((await run(name)).calls, [`cleanup:${name}`]);
    await assert.rejects(live(name), (e: unknown) => isNotFound(e));
  });

  it('a failing cleanup propagates its error and keeps the finalizer', async () => {
    const name = await create([OURS]);
    await client.delete(ConfigMaps, name, 'default');
    await assert.rejects(
      run(name, {
        cleanup: async () => {
          throw new Error('VM still there');
        },
      }),
      /VM still there/,
    );
    assert.deepEqual((await live(name)).metadata.finalizers, [OURS]);
    // The retry succeeds and releases it.
    await run(name);
    await assert.rejects(live(name), (e: unknown) => isNotFound(e));
  });

  it('a failing apply propagates its error', async () => {
    const name = await create([OURS]);
    await assert.rejects(
      run(name, {
        apply: async () => {
          throw new Error('apply failed');
        },
      }),
      /apply failed/,
    );
  });

  it('cleanup may keep the finalizer, asking to come back', async () => {
    const name = await create([OURS]);
    await client.delete(ConfigMaps, name, 'default');
    const { calls, result } = await run(name, { cleanup: async () => ({ keepFinalizer: true, requeueAfter: 500 }) });
    assert.deepEqual(calls, [`cleanup:${name}`]);
    assert.deepEqual(result, { requeueAfter: 500 });
    assert.deepEqual((await live(name)).metadata.finalizers, [OURS]);
  });

  it('does nothing for an object being deleted without our finalizer', async () => {
    const name = await create([OTHER]);
    await client.delete(ConfigMaps, name, 'default');
    const before = await live(name);
    const { calls, result } = await run(name);
    assert.deepEqual(calls, []);
    assert.equal(result, undefined);
    const after = await live(name);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'no write');
    assert.deepEqual(after.metadata.finalizers, [OTHER]);
  });

  it('never modifies the object it was given', async () => {
    const name = await create([]);
    const given = await live(name);
    const copy = structuredClone(given);
    await finalizer({ client, type: ConfigMaps, name: OURS }, given, {
      apply: async () => undefined,
      cleanup: async () => undefined,
    });
    assert.deepEqual(given, copy);
    assert.deepEqual((await live(name)).metadata.finalizers, [OURS]);
  });
});
