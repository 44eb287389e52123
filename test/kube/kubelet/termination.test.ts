// Simulated kubelets finishing graceful deletions: pods without preStop stop within shutdownMs;
// pods with a preStop hook stay Running for their whole grace period, and a second delete with
// a shorter grace period (which moves deletionTimestamp earlier, as kube-apiserver does) ends
// them at the new time; pods with finalizers stay, terminated, after the kubelet's delete.
// Also hostNetwork pods, which take the node's IP and no pod-CIDR address.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import type { JsonObject, ObjectMeta } from '../../../src/apimachinery/meta/index.ts';
import type { DeleteOptions } from '../../../src/kube/registry/store/index.ts';
import { ctx, defs } from '../controllers/scheduler/helpers.ts';

const HOST = 'kubernetes.io/hostname';
const PRESTOP = { preStop: { exec: { command: ['sh', '-c', 'sleep 30'] } } };

describe('graceful termination', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  const stored = (name: string): JsonObject | undefined => {
    const s = cp.internals.store.getStored(defs(cp).pods, 'default', name);
    return s ? (JSON.parse(s.json) as JsonObject) : undefined;
  };
  const phase = (name: string): unknown => (stored(name)?.status as JsonObject | undefined)?.phase;
  const states = (name: string): string[] =>
    (((stored(name)?.status as JsonObject | undefined)?.containerStatuses ?? []) as JsonObject[]).map((cs) =>
      Object.keys((cs.state ?? {}) as JsonObject).join(),
    );

  async function runPod(
    name: string,
    opts: { preStop?: boolean; grace?: number; finalizers?: string[]; node?: string; hostNetwork?: boolean } = {},
  ): Promise<void> {
    await cp.internals.store.create(
      defs(cp).pods,
      'default',
      {
        metadata: { name, ...(opts.finalizers ? { finalizers: opts.finalizers } : {}) },
        spec: {
          containers: [
            { name: 'app', image: 'nginx', ...(opts.preStop ? { lifecycle: PRESTOP } : {}) },
            { name: 'side', image: 'busybox' },
          ],
          nodeSelector: { [HOST]: opts.node ?? 'node-1' },
          ...(opts.grace !== undefined ? { terminationGracePeriodSeconds: opts.grace } : {}),
          ...(opts.hostNetwork ? { hostNetwork: true } : {}),
        },
      },
      ctx,
    );
    await eventually(() => phase(name) === 'Running', { what: `${name} Running` });
  }

  const del = (name: string, options: DeleteOptions = {}) =>
    cp.internals.store.delete(defs(cp).pods, 'default', name, options, ctx);

  /** Fails as soon as `check` is false during the next `ms` (a deadline, not a sleep). */
  async function holds(what: string, ms: number, check: () => boolean): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      assert.ok(check(), what);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const runningFully = (name: string) => (): boolean =>
    phase(name) === 'Running' && states(name).every((s) => s === 'running');

  test('without preStop the pod goes within shutdownMs', async () => {
    await runPod('quick', { grace: 30 });
    const start = Date.now();
    await del('quick');
    await eventually(() => !stored('quick'), { timeoutMs: 3000, what: 'quick gone' });
    const took = Date.now() - start;
    assert.ok(took >= 900 && took < 2500, `took ${took} ms`);
  });

  test('with preStop the pod stays Running past shutdownMs; a delete with grace 0 ends it', async () => {
    await runPod('hooked', { preStop: true, grace: 30 });
    await del('hooked');
    const meta = stored('hooked')!.metadata as ObjectMeta;
    assert.equal(meta.deletionGracePeriodSeconds, 30);
    await holds('hooked stays Running with running containers', 1800, runningFully('hooked'));
    const start = Date.now();
    await del('hooked', { gracePeriodSeconds: 0 });
    await eventually(() => !stored('hooked'), { timeoutMs: 1500, what: 'hooked gone' });
    assert.ok(Date.now() - start < 1500);
  });

  test('a shorter grace period moves deletionTimestamp earlier and the kubelet follows it', async () => {
    await runPod('shortened', { preStop: true, grace: 30 });
    await del('shortened');
    const first = stored('shortened')!.metadata as ObjectMeta;
    await holds('shortened stays Running', 1200, runningFully('shortened'));
    // Counted from the original deletion: (t0 + 30 s) - 30 s + 1 s is already past.
    await del('shortened', { gracePeriodSeconds: 1 });
    const updated = stored('shortened');
    if (updated) {
      const m = updated.metadata as ObjectMeta;
      assert.equal(m.deletionGracePeriodSeconds, 1);
      assert.equal(Date.parse(String(m.deletionTimestamp)), Date.parse(String(first.deletionTimestamp)) - 29_000);
    }
    await eventually(() => !stored('shortened'), { timeoutMs: 1500, what: 'shortened gone' });
  });

  test('a longer grace period does not extend a pending deletion', async () => {
    await runPod('not-longer', { preStop: true, grace: 5 });
    await del('not-longer');
    const first = stored('not-longer')!.metadata as ObjectMeta;
    await del('not-longer', { gracePeriodSeconds: 60 });
    const again = stored('not-longer')!.metadata as ObjectMeta;
    assert.equal(again.deletionTimestamp, first.deletionTimestamp);
    assert.equal(again.deletionGracePeriodSeconds, 5);
    await del('not-longer', { gracePeriodSeconds: 0 });
  });

  test('the whole grace period is used, not capped by shutdownMs', async () => {
    await runPod('full-grace', { preStop: true, grace: 3 });
    await del('full-grace');
    const deadline = Date.parse(String((stored('full-grace')!.metadata as ObjectMeta).deletionTimestamp));
    await holds(
      'full-grace Running until its deletionTimestamp',
      deadline - Date.now() - 100,
      runningFully('full-grace'),
    );
    await eventually(() => !stored('full-grace'), { timeoutMs: 2000, what: 'full-grace gone' });
  });

  test('with finalizers the pod stays, terminated, after grace 0', async () => {
    await runPod('held', { preStop: true, grace: 30, finalizers: ['example.com/hold'] });
    await del('held');
    const first = stored('held')!.metadata as ObjectMeta;
    await holds('held stays Running', 1200, runningFully('held'));
    await del('held', { gracePeriodSeconds: 0 });
    const m = stored('held')!.metadata as ObjectMeta;
    assert.equal(m.deletionGracePeriodSeconds, 0);
    assert.equal(Date.parse(String(m.deletionTimestamp)), Date.parse(String(first.deletionTimestamp)) - 30_000);
    // The kubelet sees the update and finishes at once.
    await eventually(() => phase('held') === 'Succeeded', { timeoutMs: 1500, what: 'held Succeeded' });
    assert.deepEqual(states('held'), ['terminated', 'terminated']);
    const ready = ((stored('held')!.status as JsonObject).conditions as JsonObject[]).find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    // Its grace-0 delete found the finalizer: still there until it is removed.
    await holds('held stays in storage', 300, () => stored('held') !== undefined);
    await cp.internals.store.updateWith(defs(cp).pods, 'default', 'held', ctx, (p) => {
      (p.metadata as ObjectMeta).finalizers = [];
      return p;
    });
    await eventually(() => !stored('held'), { what: 'held gone' });
  });

  test('hostNetwork pods get the node IP and take no pod-CIDR address', async () => {
    await runPod('host-net', { node: 'node-2', hostNetwork: true });
    const status = stored('host-net')!.status as JsonObject;
    assert.equal(status.hostIP, '127.0.0.2');
    assert.equal(status.podIP, '127.0.0.2');
    assert.deepEqual(status.podIPs, [{ ip: '127.0.0.2' }]);
    assert.deepEqual(status.hostIPs, [{ ip: '127.0.0.2' }]);
    // The first pod-network pod on node-2 still gets the first address of its CIDR.
    await runPod('pod-net', { node: 'node-2' });
    assert.equal((stored('pod-net')!.status as JsonObject).podIP, '10.244.2.2');
  });
});
