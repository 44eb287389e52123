// kube-apiserver's max-in-flight limits (staging/src/k8s.io/apiserver/pkg/server/filters/
// maxinflight.go): over --max-requests-inflight reads or --max-mutating-requests-inflight writes a
// request is answered 429 with `Retry-After: 1` and http.Error's text "Too many requests, please
// try again later."; long-running requests (watch, exec, attach, portforward, proxy, log) hold no
// slot, and members of system:masters are served over the limit. Requests are held in flight by a
// client that stops reading a large answer, or that has not finished sending its body.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../../helpers/control-plane.ts';
import { call, createNamespace } from '../../helpers/https.ts';
import { kubectlStream } from '../../helpers/kubectl.ts';
import { waitFor } from '../../helpers/wait.ts';
import { buildKubeconfig } from '../../../src/kube/server/kubeconfig.ts';
import { openWatch } from './watch/raw-watch.ts';

const TOKEN = 'limited-user-token';
let cp: TestCluster;
let kubeconfig: string;

before(async () => {
  cp = await startTestCluster({
    maxRequestsInFlight: 1,
    maxMutatingRequestsInFlight: 1,
    users: [{ token: TOKEN, user: { username: 'limited', groups: [] } }],
  });
  // Allowed everything by RBAC, but not in system:masters: the limits apply to it.
  const binding = await call(cp, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'limited-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'limited' }],
  });
  assert.equal(binding.code, 201, binding.text);
  await createNamespace(cp, 'held');
  kubeconfig = join(cp.dir, 'limited.kubeconfig');
  writeFileSync(kubeconfig, buildKubeconfig({ server: cp.url, caPem: cp.caPem, token: TOKEN }));
});
after(async () => {
  await cp?.stop();
});

const asLimited = { Authorization: `Bearer ${TOKEN}` };

function expectTooManyRequests(r: { code: number; text: string }, headers: Record<string, string>): void {
  assert.equal(r.code, 429, r.text);
  assert.equal(headers['retry-after'], '1');
  assert.equal(r.text, 'Too many requests, please try again later.\n');
}

/** One request as the limited user, with its response headers. */
function limitedCall(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ code: number; text: string; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${cp.url}${path}`, {
      method,
      ca: cp.caPem,
      headers: { ...asLimited, ...(payload ? { 'Content-Type': 'application/json' } : {}) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text, headers: res.headers as Record<string, string> }));
    });
    req.end(payload);
  });
}

test('over the read limit: 429 with Retry-After; watches and system:masters are still served', async () => {
  // 20 MB of ConfigMaps: a LIST whose reader pauses cannot be flushed into the socket buffers.
  for (let i = 0; i < 20; i++) {
    const r = await call(cp, 'POST', '/api/v1/namespaces/held/configmaps', {
      metadata: { name: `big-${i}` },
      data: { big: 'h'.repeat(1_000_000) },
    });
    assert.equal(r.code, 201, r.text);
  }
  let held!: IncomingMessage;
  const heldReq: ClientRequest = request(`${cp.url}/api/v1/namespaces/held/configmaps`, {
    ca: cp.caPem,
    headers: asLimited,
  });
  await new Promise<void>((resolve, reject) => {
    heldReq.on('error', reject);
    heldReq.on('response', (res) => {
      held = res;
      res.pause();
      resolve();
    });
    heldReq.end();
  });
  assert.equal(held.statusCode, 200);

  const get = await limitedCall('GET', '/api/v1/namespaces/held/configmaps/big-0');
  expectTooManyRequests(get, get.headers);
  // Long-running: a watch holds no slot and needs none.
  const watch = await openWatch(cp, '/api/v1/namespaces/held/configmaps?watch=1&resourceVersion=0', TOKEN);
  assert.equal(watch.status, 200);
  await watch.waitForLines(1);
  watch.close();
  // system:masters (the admin token) is served over the limit.
  assert.equal((await call(cp, 'GET', '/api/v1/namespaces/held/configmaps/big-0')).code, 200);

  heldReq.destroy();
  await waitFor(
    async () => (await limitedCall('GET', '/api/v1/namespaces/held/configmaps/big-0')).code === 200,
    'the read slot to be freed',
  );
});

test('over the write limit: 429, and kubectl retries after Retry-After and succeeds', async () => {
  // A create whose body has not all arrived holds the only write slot.
  const heldReq = request(`${cp.url}/api/v1/namespaces/held/configmaps`, {
    method: 'POST',
    ca: cp.caPem,
    headers: { ...asLimited, 'Content-Type': 'application/json', 'Content-Length': '1000' },
  });
  heldReq.on('error', () => {});
  heldReq.write('{"metadata":');
  await waitFor(
    async () =>
      (await limitedCall('POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'x' } })).code === 429,
    'the held create to take the write slot',
  );
  const post = await limitedCall('POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'y' } });
  expectTooManyRequests(post, post.headers);
  // Reads have their own limit.
  assert.equal((await limitedCall('GET', '/api/v1/namespaces/held')).code, 200);

  const k = kubectlStream(kubeconfig, ['-v=6', 'create', 'configmap', 'from-kubectl', '-n', 'held']);
  try {
    await waitFor(() => /429 Too Many Requests/.test(k.output()), 'kubectl to be told 429', 30_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}; kubectl said: ${k.output()}`);
      },
    );
    heldReq.destroy();
    const code = await new Promise<number | null>((resolve) => {
      if (k.child.exitCode !== null) resolve(k.child.exitCode);
      else k.child.once('exit', (c) => resolve(c));
    });
    assert.equal(code, 0, k.output());
    assert.match(k.output(), /configmap\/from-kubectl created/);
  } finally {
    k.stop();
  }
});
