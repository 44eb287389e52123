// A CONNECT request is answered, not dropped. Go's net/http hands CONNECT to the handler like any
// other method, and kube's go-restful container has no CONNECT routes, so a resource path answers
// 405 MethodNotAllowed (apiserver/pkg/server/handler.go: the director; go-restful's 405 becomes a
// Status through serviceErrorHandler). Authentication comes first, as for every request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call } from '../../helpers/https.ts';

/** Sends one raw request over TLS and returns everything the server wrote before closing. */
function rawExchange(cp: TestCluster, head: string): Promise<string> {
  const { hostname, port } = new URL(cp.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca: cp.caPem }, () => socket.write(head));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer in 10 s; got ${JSON.stringify(text)}`)));
  });
}

function statusOf(reply: string): { code: number; body: Record<string, unknown> } {
  const [head, body] = reply.split('\r\n\r\n');
  return { code: Number(head.split(' ')[1]), body: JSON.parse(body) as Record<string, unknown> };
}

describe('CONNECT', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster();
  });
  after(async () => {
    await cp?.stop();
  });

  it('on a resource path is 405 MethodNotAllowed as a Status', async () => {
    const reply = await rawExchange(
      cp,
      `CONNECT /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${cp.token}\r\n\r\n`,
    );
    const { code, body } = statusOf(reply);
    assert.equal(code, 405, reply);
    assert.deepEqual(body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      code: 405,
    });
  });

  it('with a bad token is 401, and the server goes on serving', async () => {
    const reply = await rawExchange(
      cp,
      `CONNECT /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\n\r\n`,
    );
    assert.equal(statusOf(reply).code, 401, reply);
    assert.equal((await call(cp, 'GET', '/api/v1/namespaces/default')).code, 200);
  });
});
