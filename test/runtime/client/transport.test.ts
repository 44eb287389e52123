// Client behaviour that needs a misbehaving server: retries, token rotation, malformed watch lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { KubeClient } from '../../../src/runtime/client/client.ts';
import { ConfigMaps } from '../../../src/runtime/client/resources.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { isNotFound, isUnauthorized, ApiError } from '../../../src/runtime/client/errors.ts';
import { NetworkError } from '../../../src/runtime/client/transport.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { json, startFakeHttp } from './fake-http.ts';

const quiet = { logger: silentLogger(), metricsRegistry: null };

test('plain http needs insecure-skip-tls-verify', () => {
  const kc = JSON.stringify({
    clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1' } }],
    users: [{ name: 'u', user: {} }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
  assert.throws(() => KubeClient.fromKubeconfigString(kc, quiet), /refusing plain HTTP/);
});

test('requests carry the bearer token, JSON bodies, fieldManager and typed errors', async () => {
  const srv = await startFakeHttp();
  const registry = new Registry();
  const c = KubeClient.fromKubeconfigString(srv.kubeconfig(), { logger: silentLogger(), metricsRegistry: registry });
  try {
    assert.equal(c.namespace, 'team');
    srv.handle((req, res, body) => {
      if (req.method === 'POST')
        return json(res, 201, { ...JSON.parse(body), metadata: { name: 'a', resourceVersion: '7' } });
      json(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'configmaps "b" not found' });
    });
    const created = await c.create<KubeObject>(ConfigMaps, {
      metadata: { name: 'a', namespace: 'team' },
      data: { k: 'v' },
    });
    assert.equal(created.metadata.resourceVersion, '7');
    const req = srv.requests[0]!;
    assert.equal(req.headers.authorization, 'Bearer secret-token');
    assert.equal(req.url, '/api/v1/namespaces/team/configmaps?fieldManager=peerpods');
    assert.equal(JSON.parse(req.body).kind, 'ConfigMap', 'apiVersion/kind filled from the type');
    const err = await c.get(ConfigMaps, 'b', 'team').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError && isNotFound(err));
    assert.equal(err.message, 'configmaps "b" not found');
    assert.deepEqual(err.request, { method: 'GET', path: '/api/v1/namespaces/team/configmaps/b' });
    await assert.rejects(c.get(ConfigMaps, 'b'), /namespaced: a namespace is required/);
    const text = await registry.metrics();
    assert.match(text, /peerpods_rest_client_requests_total\{method="POST",code="201"\} 1/);
    assert.match(text, /peerpods_rest_client_requests_total\{method="GET",code="404"\} 1/);
  } finally {
    c.close();
    await srv.close();
  }
});

test('429 with Retry-After is retried; without it the error surfaces', async () => {
  const srv = await startFakeHttp();
  const c = KubeClient.fromKubeconfigString(srv.kubeconfig(), quiet);
  try {
    let n = 0;
    srv.handle((_req, res) => {
      n++;
      if (n === 1)
        return json(res, 429, { kind: 'Status', code: 429, reason: 'TooManyRequests' }, { 'retry-after': '0' });
      json(res, 200, { metadata: { name: 'a' } });
    });
    assert.equal((await c.get(ConfigMaps, 'a', 'x')).metadata.name, 'a');
    assert.equal(n, 2);
    srv.handle((_req, res) => json(res, 429, { kind: 'Status', code: 429, reason: 'TooManyRequests' }));
    await assert.rejects(c.get(ConfigMaps, 'a', 'x'), (e: unknown) => e instanceof ApiError && e.code === 429);
  } finally {
    c.close();
    await srv.close();
  }
});

test('a rotated token file is picked up after a 401 without restarting', async () => {
  const srv = await startFakeHttp();
  const dir = mkdtempSync(path.join(tmpdir(), 'tok-'));
  const tokenPath = path.join(dir, 'token');
  writeFileSync(tokenPath, 'old\n');
  const c = KubeClient.fromKubeconfigString(srv.kubeconfig({ tokenFile: tokenPath }), quiet);
  try {
    let valid = 'old';
    srv.handle((req, res) => {
      if (req.headers.authorization !== `Bearer ${valid}`)
        return json(res, 401, { kind: 'Status', code: 401, reason: 'Unauthorized' });
      json(res, 200, { metadata: { name: 'ok' } });
    });
    await c.get(ConfigMaps, 'a', 'x');
    valid = 'new';
    writeFileSync(tokenPath, 'new\n');
    await c.get(ConfigMaps, 'a', 'x'); // 401 with the cached token → re-read → retry
    assert.deepEqual(
      srv.requests.map((r) => r.headers.authorization),
      ['Bearer old', 'Bearer old', 'Bearer new'],
    );
    valid = 'newer'; // the file was not rotated: the 401 is final
    await assert.rejects(c.get(ConfigMaps, 'a', 'x'), (e: unknown) => isUnauthorized(e));
  } finally {
    c.close();
    await srv.close();
  }
});

test('watch: streams events, skips a malformed line, reports ERROR events, ends on abort', async () => {
  const srv = await startFakeHttp();
  const c = KubeClient.fromKubeconfigString(srv.kubeconfig(), quiet);
  try {
    let hold: (() => void) | undefined;
    srv.handle((req, res) => {
      assert.match(req.url ?? '', /watch=true&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=30/);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '6' } } })}\n`);
      res.write('this is not json\n');
      res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } })}\n`);
      res.write(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 500, message: 'x' } })}\n`);
      hold = () => res.end();
    });
    const ac = new AbortController();
    const seen: string[] = [];
    const bad: string[] = [];
    let opened = false;
    for await (const ev of c.watch(ConfigMaps, {
      namespace: 'x',
      resourceVersion: '5',
      allowWatchBookmarks: true,
      timeoutSeconds: 30,
      signal: ac.signal,
      onOpen: () => (opened = true),
      onMalformed: (line) => bad.push(line),
    })) {
      seen.push(ev.type);
      if (ev.type === 'ADDED') assert.equal(ev.object.kind, 'ConfigMap');
      if (seen.length === 3) ac.abort();
    }
    assert.equal(opened, true);
    assert.deepEqual(seen, ['ADDED', 'BOOKMARK', 'ERROR']);
    assert.deepEqual(bad, ['this is not json']);
    hold?.();

    // A refused watch is an ApiError.
    srv.handle((_req, res) => json(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }));
    const it = c.watch(ConfigMaps, { namespace: 'x', resourceVersion: '1' })[Symbol.asyncIterator]();
    await assert.rejects(it.next(), (e: unknown) => e instanceof ApiError && e.reason === 'Expired');
  } finally {
    c.close();
    await srv.close();
  }
});

test('no server: a NetworkError names the request', async () => {
  const srv = await startFakeHttp();
  const kc = srv.kubeconfig();
  await srv.close();
  const c = KubeClient.fromKubeconfigString(kc, quiet);
  await assert.rejects(c.list(ConfigMaps, { namespace: 'a' }), (e: unknown) => {
    assert.ok(e instanceof NetworkError);
    assert.equal(e.code, 'ECONNREFUSED');
    assert.match(e.message, /^GET \/api\/v1\/namespaces\/a\/configmaps: /);
    return true;
  });
  c.close();
});
