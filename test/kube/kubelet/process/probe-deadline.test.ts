// A probe's timeout counts the pod's time, not this thread's: the simulated kubelets share the API
// server's thread, and when it was busy (100 adaptor pods and their API traffic on 2 cores) healthy
// pods failed their probes, were restarted, and the webhook lost its endpoints. A pod that does not
// answer still fails once the timeout has passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runProbe } from '../../../../src/kube/kubelet/process/probe.ts';

async function listening(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const target = { podIP: '127.0.0.1', ports: [], exec: async () => ({ exitCode: 0, output: '', timedOut: false }) };

/** The thread does nothing else for `ms`, as a saturated API server would. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

test('an HTTP probe whose timeout passed while the thread was blocked reads the reply it got', async () => {
  const { server, port } = await listening((_req, res) => res.end('ok'));
  try {
    const result = runProbe({ httpGet: { path: '/healthz', port }, timeoutSeconds: 1 }, target);
    block(1500);
    assert.deepEqual(await result, { success: true, output: '' });
  } finally {
    server.close();
  }
});

test('a TCP probe likewise', async () => {
  const { server, port } = await listening((_req, res) => res.end('ok'));
  try {
    const result = runProbe({ tcpSocket: { port }, timeoutSeconds: 1 }, target);
    block(1500);
    assert.equal((await result).success, true);
  } finally {
    server.close();
  }
});

test('a pod that never answers fails after its timeout, stalls or not', async () => {
  const { server, port } = await listening(() => {
    // Accepts and never replies.
  });
  try {
    const t0 = performance.now();
    const result = runProbe({ httpGet: { path: '/healthz', port }, timeoutSeconds: 1 }, target);
    const r = await result;
    const elapsed = performance.now() - t0;
    assert.equal(r.success, false);
    assert.match(r.output, /context deadline exceeded/);
    assert.ok(elapsed >= 1000 && elapsed < 3000, `failed after ${Math.round(elapsed)} ms`);

    const t1 = performance.now();
    const stalled = runProbe({ httpGet: { path: '/healthz', port }, timeoutSeconds: 1 }, target);
    block(1500);
    const s = await stalled;
    assert.equal(s.success, false);
    // The 500 ms the timer fired late are given back, once: about 2 s in all.
    const total = performance.now() - t1;
    assert.ok(total >= 1900 && total < 4000, `failed after ${Math.round(total)} ms`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
