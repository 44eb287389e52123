// What exec, attach and portforward answer before any stream exists: authentication as for every
// request (apiserver filters/authentication.go), kube's 400 for a request that does not upgrade
// (proxy UpgradeAwareHandler), the pod and node checks (pod/strategy.go streamLocation), and the
// SPDY protocol negotiation (apimachinery httpstream.Handshake).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startStreamingCluster, type StreamingCluster } from './cluster.ts';

let c: StreamingCluster;
before(async () => {
  c = await startStreamingCluster();
});
after(async () => {
  await c.cp.stop();
});

interface Answer {
  code: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(method: string, path: string, headers: Record<string, string | string[]>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${c.cp.url}${path}`, { method, headers, ca: c.cp.caPem });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ code: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

const spdy = (protocols: string[], token?: string): Record<string, string | string[]> => ({
  Connection: 'Upgrade',
  Upgrade: 'SPDY/3.1',
  'X-Stream-Protocol-Version': protocols,
  ...(token ? { Authorization: `Bearer ${token}` } : {}),
});
const exec = '/api/v1/namespaces/default/pods/one/exec?command=true&stdout=true';

// Without a token the request is anonymous (kube-apiserver's --anonymous-auth defaults to true) and
// RBAC refuses it (responsewriters/errors.go ForbiddenStatusError, api/errors NewForbidden); a token
// no authenticator recognises is a 401 (filters/authentication.go).
test('an upgrade without the bearer token: anonymous, 403 Status', async () => {
  const a = await call('POST', exec, spdy(['v4.channel.k8s.io']));
  assert.equal(a.code, 403);
  assert.equal(a.headers['x-content-type-options'], 'nosniff');
  assert.deepEqual(JSON.parse(a.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'pods "one" is forbidden: User "system:anonymous" cannot create resource "pods/exec" in API group "" in the namespace "default"',
    reason: 'Forbidden',
    details: { name: 'one', kind: 'pods' },
    code: 403,
  });
});

test('an upgrade with a wrong bearer token: 401 Status', async () => {
  const a = await call('POST', exec, spdy(['v4.channel.k8s.io'], 'not-the-token'));
  assert.equal(a.code, 401);
  assert.deepEqual(JSON.parse(a.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  });
});

test('no common protocol: 403 naming both lists', async () => {
  const a = await call('POST', exec, spdy(['v9.channel.k8s.io'], c.cp.token));
  assert.equal(a.code, 403);
  assert.equal(
    a.body.trim(),
    'unable to upgrade: unable to negotiate protocol: client supports [v9.channel.k8s.io], server accepts [v5.channel.k8s.io v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]',
  );
  assert.equal(
    a.headers['x-accepted-stream-protocol-versions'],
    'v5.channel.k8s.io, v4.channel.k8s.io, v3.channel.k8s.io, v2.channel.k8s.io, channel.k8s.io',
  );
  const pf = await call(
    'POST',
    '/api/v1/namespaces/default/pods/one/portforward',
    spdy(['v4.channel.k8s.io'], c.cp.token),
  );
  assert.equal(pf.code, 403);
  assert.match(pf.body, /server accepts \[portforward\.k8s\.io\]/);
});

test('the chosen protocol is the client’s first one the server speaks', async () => {
  const a = await call('POST', exec, spdy(['v9.channel.k8s.io', 'v4.channel.k8s.io', 'v5.channel.k8s.io'], c.cp.token));
  assert.equal(a.code, 101);
  assert.equal(a.headers['x-stream-protocol-version'], 'v4.channel.k8s.io');
  assert.equal(a.headers.upgrade, 'SPDY/3.1');
});

test('a request that does not upgrade: 400 Upgrade request required', async () => {
  for (const sub of ['exec?command=true&stdout=true', 'portforward']) {
    const a = await call('POST', `/api/v1/namespaces/default/pods/one/${sub}`, {
      Authorization: `Bearer ${c.cp.token}`,
    });
    assert.equal(a.code, 400);
    assert.equal(JSON.parse(a.body).message, 'Upgrade request required');
  }
});

test('pod, container and node are checked first; attach is refused clearly', async () => {
  const auth = (protocols: string[]) => spdy(protocols, c.cp.token);
  const ghost = await call(
    'POST',
    '/api/v1/namespaces/default/pods/ghost/exec?command=true&stdout=true',
    auth(['v4.channel.k8s.io']),
  );
  assert.equal(ghost.code, 404);
  assert.equal(JSON.parse(ghost.body).message, 'pods "ghost" not found');
  const unscheduled = await call(
    'POST',
    '/api/v1/namespaces/default/pods/nowhere/exec?command=true&stdout=true',
    auth(['v4.channel.k8s.io']),
  );
  assert.equal(unscheduled.code, 400);
  assert.equal(JSON.parse(unscheduled.body).message, 'pod nowhere does not have a host assigned');
  const two = await call(
    'POST',
    '/api/v1/namespaces/default/pods/two/exec?command=true&stdout=true',
    auth(['v4.channel.k8s.io']),
  );
  assert.equal(JSON.parse(two.body).message, 'a container name must be specified for pod two, choose one of: [a b]');
  const attach = await call(
    'POST',
    '/api/v1/namespaces/default/pods/one/attach?stdout=true',
    auth(['v4.channel.k8s.io']),
  );
  assert.equal(attach.code, 400);
  assert.match(JSON.parse(attach.body).message, /attach is not supported/);
  const noStreams = await call(
    'POST',
    '/api/v1/namespaces/default/pods/one/exec?command=true',
    auth(['v4.channel.k8s.io']),
  );
  assert.equal(noStreams.code, 400);
  assert.equal(noStreams.body.trim(), 'you must specify at least 1 of stdin, stdout, stderr');
});

test('an upgrade request for another path is served as an ordinary request', async () => {
  const a = await call('GET', '/api/v1/namespaces/default/pods/one', {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    Authorization: `Bearer ${c.cp.token}`,
  });
  assert.equal(a.code, 200);
  assert.equal(JSON.parse(a.body).metadata.name, 'one');
});
