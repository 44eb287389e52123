// A client that goes away while sending a body is routine (a killed kubectl, a restarted
// operator): the server drops the request without writing a stack trace to its log. Go's
// net/http sees the same as a body read error and kube logs nothing of it.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';

describe('an aborted request body', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 0 });
  });
  after(async () => {
    await cp?.stop();
  });

  it('is dropped without a log line, and the server goes on serving', async () => {
    // The server is in this process: its side of the request is seen through Node's HTTP channel.
    const seen: IncomingMessage[] = [];
    const onStart = (message: unknown): void => {
      const { request: req } = message as { request: IncomingMessage };
      if (req.method === 'POST') seen.push(req);
    };
    subscribe('http.server.request.start', onStart);
    const logged = mock.method(console, 'error', () => {});
    try {
      const req = request(`${cp.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        ca: cp.caPem,
        headers: { Authorization: `Bearer ${cp.token}`, 'Content-Type': 'application/json', 'Content-Length': '1000' },
      });
      req.on('error', () => {});
      req.write('{"metadata":');
      await new Promise<void>((resolve, reject) => {
        const deadline = Date.now() + 10_000;
        const poll = (): void => {
          if (seen.length > 0) return resolve();
          if (Date.now() > deadline) return reject(new Error('the server never saw the request'));
          setTimeout(poll, 5);
        };
        poll();
      });
      const serverSide = seen[0];
      req.destroy();
      // The server's request errors ('aborted') and then closes.
      await new Promise((resolve) => serverSide.on('close', resolve));
      // The request's error reaches the handler's catch a few callbacks after the close.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        logged.mock.calls.map((c) => String(c.arguments[0])),
        [],
      );
      assert.equal((await call(cp, 'GET', '/api/v1/namespaces/default')).code, 200);
    } finally {
      logged.mock.restore();
      unsubscribe('http.server.request.start', onStart);
    }
  });
});
