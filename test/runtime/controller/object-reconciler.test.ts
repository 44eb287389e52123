// The object form (completeWithObjects): the reconciler gets the cached object of the for() kind
// from the informer the builder registered, or a gone signal with the last state the controller saw,
// kept until the gone reconcile succeeds. Against the embedded control plane, plus the tombstone
// bound on a hand-driven informer.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { ConfigMaps, ControllerBuilder, Manager, TerminalError, silentLogger } from '../../../src/runtime/index.ts';
import type { Controller, Gone, KubeClient, KubeObject, Request } from '../../../src/runtime/index.ts';
import { objectReconciler } from '../../../src/runtime/controller/object-reconciler.ts';
import { startTestCluster } from '../../helpers/runtime-cluster.ts';
import type { TestCluster } from '../../helpers/runtime-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';
import { FakeInformer, obj } from './fake-informer.ts';

type ConfigMap = KubeObject & { data?: Record<string, string> };

const SCOPE = { namespace: 'default', labelSelector: 'role=objects' };
const rctx = () => ({ signal: new AbortController().signal, log: silentLogger(), reconcileId: 'r' });

async function metric(reg: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const m = (await reg.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value ?? 0;
}

describe('object-form reconcilers against the embedded control plane', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let registry: Registry;
  let manager: Manager;
  let running: Promise<void>;
  let controller: Controller;
  const seen = new Map<string, ConfigMap[]>();
  const gone = new Map<string, Array<Gone<ConfigMap>>>();
  /** Names whose gone reconcile fails this many more times. */
  const goneFailures = new Map<string, number>();

  before(async () => {
    cluster = await startTestCluster();
    registry = new Registry();
    client = cluster.client(registry);
    manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });
    controller = new ControllerBuilder(manager, 'objects')
      .for<ConfigMap>(ConfigMaps, { scope: SCOPE })
      .completeWithObjects({
        reconcileObject: async (cm) => {
          const name = cm.metadata.name as string;
          seen.set(name, [...(seen.get(name) ?? []), cm]);
          const mode = cm.data?.mode;
          if (mode === 'requeue') return { requeueAfter: 50 };
          if (mode === 'terminal') throw new TerminalError('bad spec');
          return undefined;
        },
        reconcileGone: async (g) => {
          gone.set(g.request.name, [...(gone.get(g.request.name) ?? []), g]);
          const left = goneFailures.get(g.request.name) ?? 0;
          if (left > 0) {
            goneFailures.set(g.request.name, left - 1);
            throw new Error('cleanup failed');
          }
        },
      });
    running = manager.start();
    await manager.elected();
  });

  after(async () => {
    await manager.stop();
    await running;
    await cluster.stop();
  });

  async function create(name: string, data: Record<string, string>, labels = { role: 'objects' }): Promise<void> {
    await client.create(ConfigMaps, { metadata: { name, namespace: 'default', labels }, data });
  }

  it('hands over the object cached by the informer for() registered, with its scope', async () => {
    await create('a', { v: '1' });
    await waitFor(() => (seen.get('a') ?? []).length > 0, 'a reconciled');
    const got = seen.get('a')![0];
    assert.deepEqual(got.data, { v: '1' });
    const cached = manager.informerFor<ConfigMap>(ConfigMaps, SCOPE).get('default', 'a');
    assert.deepEqual(got, cached, 'the object as the scoped informer holds it');
    assert.equal(gone.has('a'), false);
  });

  it('reads nothing outside the scope: an unlabelled object is gone to it, without a last state', async () => {
    await create('outside', { v: '1' }, { role: 'other' });
    controller.enqueue({ namespace: 'default', name: 'outside' });
    await waitFor(() => gone.has('outside'), 'gone reconcile for the out-of-scope object');
    assert.equal(seen.has('outside'), false);
    assert.deepEqual(gone.get('outside'), [{ request: { namespace: 'default', name: 'outside' } }]);
  });

  it('signals a deleted object as gone, with its last state, and drops that state after success', async () => {
    await create('b', { v: '1' });
    await waitFor(() => (seen.get('b') ?? []).length > 0, 'b reconciled');
    await client.patch(ConfigMaps, 'b', 'default', { data: { v: '2' } }, 'merge');
    await waitFor(() => (seen.get('b') ?? []).some((o) => o.data?.v === '2'), 'b update reconciled');
    await client.delete(ConfigMaps, 'b', 'default');
    await waitFor(() => gone.has('b'), 'gone reconcile for b');
    const [first] = gone.get('b')!;
    assert.deepEqual(first.request, { namespace: 'default', name: 'b' });
    assert.equal(first.lastKnown?.metadata.name, 'b');
    assert.deepEqual(first.lastKnown?.data, { v: '2' }, 'the state the controller saw deleted');

    // The gone reconcile succeeded: the tombstone is gone, a later request for b has no last state.
    controller.enqueue({ namespace: 'default', name: 'b' });
    await waitFor(() => gone.get('b')!.length === 2, 'second gone reconcile');
    assert.deepEqual(gone.get('b')![1], { request: { namespace: 'default', name: 'b' } });
  });

  it('keeps the last state while the gone reconcile fails, and retries it with backoff', async () => {
    goneFailures.set('c', 2);
    await create('c', { v: 'last' });
    await waitFor(() => seen.has('c'), 'c reconciled');
    await client.delete(ConfigMaps, 'c', 'default');
    await waitFor(() => (gone.get('c') ?? []).length === 3, 'two failures and a success');
    for (const g of gone.get('c')!) assert.deepEqual(g.lastKnown?.data, { v: 'last' });
    controller.enqueue({ namespace: 'default', name: 'c' });
    await waitFor(() => gone.get('c')!.length === 4, 'a reconcile after the success');
    assert.equal(gone.get('c')![3].lastKnown, undefined);
    assert.ok((await metric(registry, 'controller_runtime_reconcile_errors_total', { controller: 'objects' })) >= 2);
  });

  it('honours requeueAfter, counted as requeue_after', async () => {
    const before = await metric(registry, 'controller_runtime_reconcile_total', {
      controller: 'objects',
      result: 'requeue_after',
    });
    await create('r', { mode: 'requeue' });
    await waitFor(() => (seen.get('r') ?? []).length >= 3, 'three reconciles through requeueAfter');
    const now = await metric(registry, 'controller_runtime_reconcile_total', {
      controller: 'objects',
      result: 'requeue_after',
    });
    assert.ok(now - before >= 2, `requeue_after counted (${before} → ${now})`);
    await client.patch(ConfigMaps, 'r', 'default', { data: { mode: 'done' } }, 'merge');
  });

  it('does not retry a TerminalError, and counts it', async () => {
    await create('t', { mode: 'terminal' });
    await waitFor(() => seen.has('t'), 't reconciled');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(seen.get('t')!.length, 1, 'not retried');
    assert.equal(
      await metric(registry, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'objects' }),
      1,
    );
  });
});

describe('objectReconciler tombstones', () => {
  it('keeps at most maxTombstones, dropping the oldest first', async () => {
    const informer = new FakeInformer();
    const got: Array<Gone<KubeObject>> = [];
    const r = objectReconciler(
      informer,
      { reconcileObject: async () => undefined, reconcileGone: async (g) => void got.push(g) },
      { maxTombstones: 2 },
    );
    for (const n of ['x', 'y', 'z']) {
      informer.add(obj(n));
      informer.delete(obj(n));
    }
    for (const n of ['x', 'y', 'z']) await r.reconcile({ namespace: 'default', name: n }, rctx());
    assert.deepEqual(
      got.map((g) => [g.request.name, g.lastKnown?.metadata.name]),
      [
        ['x', undefined],
        ['y', 'y'],
        ['z', 'z'],
      ],
    );
  });

  it('keeps the last state while a gone reconcile asks to come back, and forgets it when the object returns', async () => {
    const informer = new FakeInformer();
    const got: Array<Gone<KubeObject>> = [];
    let requeue = true;
    const objects: string[] = [];
    const r = objectReconciler(informer, {
      reconcileObject: async (o) => void objects.push(o.metadata.name as string),
      reconcileGone: async (g) => {
        got.push(g);
        return requeue ? { requeueAfter: 1000 } : undefined;
      },
    });
    const req: Request = { namespace: 'default', name: 'a' };
    informer.add(obj('a'));
    informer.delete(obj('a', { resourceVersion: '7' }));
    assert.deepEqual(await r.reconcile(req, rctx()), { requeueAfter: 1000 });
    requeue = false;
    await r.reconcile(req, rctx());
    assert.deepEqual(
      got.map((g) => g.lastKnown?.metadata.resourceVersion),
      ['7', '7'],
    );
    await r.reconcile(req, rctx());
    assert.equal(got[2].lastKnown, undefined, 'dropped after the successful gone reconcile');

    informer.add(obj('a'));
    informer.delete(obj('a', { resourceVersion: '9' }));
    informer.add(obj('a', { resourceVersion: '10' }));
    await r.reconcile(req, rctx());
    assert.deepEqual(objects, ['a']);
    informer.delete(obj('a', { resourceVersion: '11' }));
    await r.reconcile(req, rctx());
    assert.equal(got[3].lastKnown?.metadata.resourceVersion, '11');
  });

  it('a TerminalError from the gone reconcile drops the last state (nothing will retry it)', async () => {
    const informer = new FakeInformer();
    const got: Array<Gone<KubeObject>> = [];
    let fail = true;
    const r = objectReconciler(informer, {
      reconcileObject: async () => undefined,
      reconcileGone: async (g) => {
        got.push(g);
        if (fail) throw new TerminalError('no');
      },
    });
    informer.add(obj('a'));
    informer.delete(obj('a'));
    await assert.rejects(r.reconcile({ namespace: 'default', name: 'a' }, rctx()), TerminalError);
    fail = false;
    await r.reconcile({ namespace: 'default', name: 'a' }, rctx());
    assert.ok(got[0].lastKnown);
    assert.equal(got[1].lastKnown, undefined);
  });

  it('without reconcileGone, a missing object is a no-op and no handler is registered', async () => {
    const informer = new FakeInformer();
    const calls: string[] = [];
    const r = objectReconciler(informer, async (o) => void calls.push(o.metadata.name as string));
    assert.equal(informer.handlers.length, 0);
    assert.equal(await r.reconcile({ namespace: 'default', name: 'missing' }, rctx()), undefined);
    informer.add(obj('here'));
    await r.reconcile({ namespace: 'default', name: 'here' }, rctx());
    assert.deepEqual(calls, ['here']);
  });
});
