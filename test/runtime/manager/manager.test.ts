import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Registry } from 'prom-client';
import { KubeClient } from '../../../src/runtime/client/client.ts';
import { Controller, requestForObject } from '../../../src/runtime/controller/index.ts';
import type { ReconcileContext } from '../../../src/runtime/controller/index.ts';
import { Manager, runnableFunc } from '../../../src/runtime/manager/index.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { FakeInformer, obj } from '../controller/fake-informer.ts';
import { deferred, waitFor } from '../../helpers/wait.ts';

// No API server is needed: these managers have no informers and no leader election.
const KUBECONFIG = `
apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://127.0.0.1:1" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: default } }]
current-context: x
`;

function newManager(opts: { graceMs?: number; handleSignals?: boolean } = {}) {
  const registry = new Registry();
  const client = KubeClient.fromKubeconfigString(KUBECONFIG, { metricsRegistry: registry, logger: silentLogger() });
  const m = new Manager({
    client,
    metricsRegistry: registry,
    logger: silentLogger(),
    server: { host: '127.0.0.1', port: 0 },
    handleSignals: opts.handleSignals ?? false,
    ...(opts.graceMs !== undefined ? { gracefulShutdownTimeoutMs: opts.graceMs } : {}),
  });
  return { m, registry, client };
}

function addController(m: Manager, reconcile: (ctx: ReconcileContext) => Promise<void>) {
  const informer = new FakeInformer();
  const c = new Controller({
    name: 'demo',
    reconciler: { reconcile: (_req, ctx) => reconcile(ctx) },
    logger: m.logger,
    metricsRegistry: m.metricsRegistry,
    ...m.controllerDefaults,
  });
  c.watch({ informer, map: requestForObject, predicates: [] });
  m.add(c);
  return { informer, controller: c };
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('Manager', () => {
  it('finishes an in-flight reconcile on shutdown before stopping', async () => {
    const { m, client } = newManager();
    const release = deferred();
    let started = false;
    let finished = false;
    let aborted = false;
    const { informer, controller } = addController(m, async (ctx) => {
      started = true;
      await release.promise;
      aborted = ctx.signal.aborted;
      finished = true;
    });
    const running = m.start();
    await m.elected();
    informer.add(obj('a'));
    await waitFor(() => started, 'reconcile started');
    let stopped = false;
    const stopping = m.stop().then(() => (stopped = true));
    await waitFor(() => controller.queue?.shuttingDown === true, 'the controller to begin stopping');
    await new Promise((r) => setImmediate(r));
    assert.equal(stopped, false, 'the manager waits for the in-flight reconcile');
    release.resolve();
    await stopping;
    await running;
    assert.equal(finished, true);
    assert.equal(aborted, false, 'the reconcile was allowed to finish normally');
    client.close();
  });

  it('caps the shutdown at gracefulShutdownTimeoutMs and aborts the reconcile signal', async () => {
    const { m, client } = newManager({ graceMs: 300 });
    let sawAbort = false;
    let started = false;
    const { informer } = addController(m, async (ctx) => {
      started = true;
      await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
      sawAbort = true;
    });
    const running = m.start();
    await m.elected();
    informer.add(obj('stuck'));
    await waitFor(() => started, 'reconcile started');
    const t0 = Date.now();
    await m.stop();
    await running;
    const took = Date.now() - t0;
    assert.ok(took >= 250 && took < 5_000, `shutdown took ${took} ms`);
    assert.equal(sawAbort, true);
    client.close();
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const { m, client } = newManager({ handleSignals: true });
    let stoppedWith: unknown;
    m.add(
      runnableFunc(async (signal) => {
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
        stoppedWith = signal.reason;
      }),
    );
    const running = m.start();
    await m.elected();
    process.emit('SIGTERM');
    await running;
    assert.equal((stoppedWith as Error).name, 'StopRequest');
    assert.equal(process.listenerCount('SIGTERM'), 0, 'handlers removed after shutdown');
    client.close();
  });

  it('serves /metrics, /healthz and /readyz', async () => {
    const { m, client } = newManager();
    addController(m, async () => {});
    let ready = false;
    m.addReadyCheck('warm', () => (ready ? true : new Error('still warming up')));
    const running = m.start();
    const { port } = await m.serverAddress();
    const metrics = await get(port, '/metrics');
    assert.equal(metrics.status, 200);
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_active_workers',
      'workqueue_depth',
      'workqueue_adds_total',
      'rest_client_requests_total',
    ]) {
      assert.match(metrics.body, new RegExp(`# TYPE ${name} `), name);
    }
    assert.deepEqual(await get(port, '/healthz'), { status: 200, body: 'ok' });
    const notReady = await get(port, '/readyz');
    assert.equal(notReady.status, 500);
    assert.match(notReady.body, /\[-\]warm failed: still warming up/);
    assert.match(notReady.body, /\[\+\]informers ok/);
    ready = true;
    assert.equal((await get(port, '/readyz')).status, 200);
    assert.match((await get(port, '/readyz?verbose')).body, /\[\+\]warm ok/);
    assert.equal((await get(port, '/readyz/warm')).status, 200);
    assert.equal((await get(port, '/readyz/nope')).status, 404);
    assert.equal((await get(port, '/other')).status, 404);
    await m.stop();
    await running;
    client.close();
  });

  it('stops and rejects start() when a runnable fails', async () => {
    const { m, client } = newManager();
    let otherStopped = false;
    m.add(
      runnableFunc(async (signal) => {
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
        otherStopped = true;
      }),
    );
    m.add(
      runnableFunc(async () => {
        throw new Error('boom');
      }),
    );
    await assert.rejects(m.start(), /boom/);
    assert.equal(otherStopped, true);
    client.close();
  });
});
