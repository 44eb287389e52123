// The resource-handler layer: the finalizer protocol and the cancel flags of a HandlerChain, the
// CRUD sequence, and the set diffs — against a real API server (finalizer writes) where it matters.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ConfigMaps,
  HandlerChain,
  HandlerError,
  KubeClient,
  crudHandler,
  diffByName,
  intersectByName,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { HandlerContext, KubeObject, ResourceHandler } from '../../../src/runtime/index.ts';
import { startTestCluster } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';

const FINALIZER = 'example.com/chain';
const rctx = () => ({ signal: new AbortController().signal, log: silentLogger(), reconcileId: 'r' });

type Step = 'cancelHandler' | 'cancelReconciliation' | 'keepFinalizer' | 'throw' | 'none';

/** A handler that records its calls and does `step` on the given path. */
function recorder(
  name: string,
  calls: string[],
  step: { update?: Step; delete?: Step } = {},
): ResourceHandler<KubeObject> {
  const act = (s: Step | undefined, ctx: HandlerContext) => {
    if (s === 'cancelHandler') ctx.cancelHandler('test');
    if (s === 'cancelReconciliation') ctx.cancelReconciliation('test');
    if (s === 'keepFinalizer') ctx.keepFinalizer('test');
    if (s === 'throw') throw new Error(`${name} failed`);
  };
  return {
    name,
    async ensureCreated(_o, ctx) {
      calls.push(`${name}:created`);
      act(step.update, ctx);
    },
    async ensureDeleted(_o, ctx) {
      calls.push(`${name}:deleted`);
      act(step.delete, ctx);
    },
  };
}

describe('HandlerChain', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let n = 0;
  before(async () => {
    cluster = await startTestCluster();
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  });
  after(async () => {
    client.close();
    await cluster.stop();
  });

  async function setup(handlers: ResourceHandler<KubeObject>[], opts: { finalizer?: boolean; paused?: boolean } = {}) {
    const name = `cm-${++n}`;
    await client.create(ConfigMaps, {
      metadata: {
        name,
        namespace: 'default',
        ...(opts.finalizer ? { finalizers: [FINALIZER] } : {}),
        ...(opts.paused ? { annotations: { 'example.com/paused': 'true' } } : {}),
      },
    });
    const live = async () => client.get(ConfigMaps, name, 'default');
    let current: KubeObject | undefined = await live();
    const chain = new HandlerChain<KubeObject>({
      name: 'test',
      finalizer: FINALIZER,
      type: ConfigMaps,
      client,
      // The object as last read from the server: these tests drive one reconcile at a time.
      get: () => current,
      handlers,
      pausedAnnotations: ['example.com/paused'],
      resyncMs: 60_000,
      recheckMs: 1_000,
    });
    return {
      name,
      reconcile: async () => {
        current = await live();
        return chain.reconcile({ namespace: 'default', name }, rctx());
      },
      live,
      chain,
    };
  }

  it('adds its finalizer first and stops; the next run executes the handlers in order', async () => {
    const calls: string[] = [];
    const s = await setup([recorder('a', calls), recorder('b', calls)]);
    assert.equal(await s.reconcile(), undefined);
    assert.deepEqual(calls, []);
    assert.deepEqual((await s.live()).metadata.finalizers, [FINALIZER]);
    assert.deepEqual(await s.reconcile(), { requeueAfter: 60_000 });
    assert.deepEqual(calls, ['a:created', 'b:created']);
  });

  it('cancelHandler skips only the rest of that handler; cancelReconciliation stops the chain and rechecks sooner', async () => {
    const calls: string[] = [];
    const s = await setup(
      [
        recorder('a', calls, { update: 'cancelHandler' }),
        recorder('b', calls, { update: 'cancelReconciliation' }),
        recorder('c', calls),
      ],
      { finalizer: true },
    );
    assert.deepEqual(await s.reconcile(), { requeueAfter: 1_000 });
    assert.deepEqual(calls, ['a:created', 'b:created']);
    assert.deepEqual(s.chain.lastResult.get(`default/${s.name}`)?.canceledBy, { handler: 'b', reason: 'test' });
  });

  it('on delete: runs ensureDeleted in order and removes the finalizer (the object goes)', async () => {
    const calls: string[] = [];
    const s = await setup([recorder('a', calls), recorder('b', calls)], { finalizer: true });
    await client.delete(ConfigMaps, s.name, 'default');
    await s.reconcile();
    assert.deepEqual(calls, ['a:deleted', 'b:deleted']);
    await assert.rejects(s.live(), (e: { code?: number }) => e.code === 404);
  });

  it('on delete: keepFinalizer keeps it but the chain continues; cancelReconciliation keeps it and stops', async () => {
    for (const [step, want] of [
      ['keepFinalizer', ['a:deleted', 'b:deleted']],
      ['cancelReconciliation', ['a:deleted']],
    ] as const) {
      const calls: string[] = [];
      const s = await setup([recorder('a', calls, { delete: step }), recorder('b', calls)], { finalizer: true });
      await client.delete(ConfigMaps, s.name, 'default');
      assert.deepEqual(await s.reconcile(), { requeueAfter: 1_000 }, step);
      assert.deepEqual(calls, want, step);
      assert.deepEqual((await s.live()).metadata.finalizers, [FINALIZER], step);
    }
  });

  it('a handler error is returned to the controller (for backoff), naming the handler; later handlers do not run', async () => {
    const calls: string[] = [];
    const s = await setup([recorder('a', calls, { update: 'throw' }), recorder('b', calls)], { finalizer: true });
    await assert.rejects(
      s.reconcile(),
      (e: unknown) => e instanceof HandlerError && e.handler === 'a' && /a failed/.test(e.message),
    );
    assert.deepEqual(calls, ['a:created']);
  });

  it('skips paused objects and deleted objects without its finalizer', async () => {
    const calls: string[] = [];
    const paused = await setup([recorder('a', calls)], { paused: true });
    assert.equal(await paused.reconcile(), undefined);
    assert.equal((await paused.live()).metadata.finalizers, undefined);
    const other = await setup([recorder('a', calls)]);
    await client.patch(ConfigMaps, other.name, 'default', { metadata: { finalizers: ['someone.else/x'] } }, 'merge');
    await client.delete(ConfigMaps, other.name, 'default');
    assert.equal(await other.reconcile(), undefined);
    assert.deepEqual(calls, []);
  });

  it('refuses two handlers of the same name', () => {
    assert.throws(
      () =>
        new HandlerChain({
          name: 'x',
          finalizer: FINALIZER,
          type: ConfigMaps,
          client,
          get: () => undefined,
          handlers: [recorder('a', []), recorder('a', [])],
        }),
      /listed twice/,
    );
  });
});

describe('crudHandler', () => {
  const ctx = (over: Partial<HandlerContext> = {}): HandlerContext & { canceled: boolean } => {
    let canceled = false;
    return {
      event: 'update',
      signal: new AbortController().signal,
      log: silentLogger(),
      cancelHandler: () => void (canceled = true),
      cancelReconciliation: () => {},
      keepFinalizer: () => {},
      requeueAfter: () => {},
      get handlerCanceled() {
        return canceled;
      },
      reconciliationCanceled: false,
      get canceled() {
        return canceled;
      },
      ...over,
    } as HandlerContext & { canceled: boolean };
  };

  it('applies create, then delete, then update; skips empty changes; stops when cancelled', async () => {
    const calls: string[] = [];
    const h = crudHandler<KubeObject, string[]>({
      name: 'x',
      currentState: async () => ['a', 'b'],
      desiredState: async () => ['b', 'c'],
      updatePatch: (_o, cur, des) => ({
        create: des.filter((d) => !cur.includes(d)),
        delete: cur.filter((c) => !des.includes(c)),
        update: [],
      }),
      deletePatch: (_o, cur) => ({ delete: cur }),
      applyCreate: async (_o, c) => void calls.push(`create:${c.join()}`),
      applyDelete: async (_o, c, cx) => {
        calls.push(`delete:${c.join()}`);
        if (c.includes('a') && c.includes('b')) cx.cancelHandler('stop');
      },
      applyUpdate: async (_o, c) => void calls.push(`update:${c.join()}`),
    });
    await h.ensureCreated({ metadata: {} }, ctx());
    assert.deepEqual(calls, ['create:c', 'delete:a']);
    calls.length = 0;
    await h.ensureDeleted({ metadata: {} }, ctx({ event: 'delete' }));
    assert.deepEqual(calls, ['delete:a,b']);
  });
});

describe('diffByName / intersectByName', () => {
  const o = (name: string, v = 0) => ({ metadata: { name, namespace: 'ns' }, v });
  const modified = (a: { v: number }, b: { v: number }) => a.v !== b.v;
  const cases = [
    { name: 'nothing to do', current: [o('a')], desired: [o('a')], want: { create: [], delete: [], update: [] } },
    { name: 'create missing', current: [], desired: [o('a')], want: { create: ['a'], delete: [], update: [] } },
    {
      name: 'delete unwanted (scale-in)',
      current: [o('a'), o('b')],
      desired: [o('a')],
      want: { create: [], delete: ['b'], update: [] },
    },
    {
      name: 'update modified only',
      current: [o('a', 1), o('b')],
      desired: [o('a', 2), o('b')],
      want: { create: [], delete: [], update: ['a'] },
    },
    {
      name: 'all three',
      current: [o('a'), o('b', 1)],
      desired: [o('b', 2), o('c')],
      want: { create: ['c'], delete: ['a'], update: ['b'] },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const d = diffByName(tc.current, tc.desired, modified);
      const names = (xs: { metadata: { name?: string } }[]) => xs.map((x) => x.metadata.name);
      assert.deepEqual({ create: names(d.create), delete: names(d.delete), update: names(d.update) }, tc.want);
    });
  }
  it('the delete path deletes only what is both present and ours', () => {
    assert.deepEqual(
      intersectByName([o('a'), o('b')], [o('b'), o('c')]).map((x) => x.metadata.name),
      ['b'],
    );
  });
});
