import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/runtime/util/clock.ts';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  retryOnConflict,
} from '../../../src/runtime/client/errors.ts';
import { TokenBucket } from '../../../src/runtime/client/rate-limit.ts';
import { decodeWatchStream, parseWatchLine } from '../../../src/runtime/client/watch-stream.ts';
import { resourcePath, withQuery } from '../../../src/runtime/client/paths.ts';
import { ConfigMaps, Deployments, Nodes, customResource, apiVersionOf } from '../../../src/runtime/client/resources.ts';

test('resource paths for core, grouped, cluster-scoped kinds and subresources', () => {
  assert.equal(resourcePath(ConfigMaps, 'ns', 'a'), '/api/v1/namespaces/ns/configmaps/a');
  assert.equal(resourcePath(ConfigMaps), '/api/v1/configmaps');
  assert.equal(resourcePath(Deployments, 'ns', 'd', 'status'), '/apis/apps/v1/namespaces/ns/deployments/d/status');
  assert.equal(resourcePath(Nodes, 'ignored', 'n1'), '/api/v1/nodes/n1');
  const PeerPods = customResource('confidentialcontainers.org', 'v1alpha1', 'PeerPod', 'PeerPods', true);
  assert.equal(resourcePath(PeerPods, 'x'), '/apis/confidentialcontainers.org/v1alpha1/namespaces/x/peerpods');
  assert.equal(apiVersionOf(PeerPods), 'confidentialcontainers.org/v1alpha1');
  assert.equal(withQuery('/p', { a: 'x y', b: undefined, c: '', d: 5, e: true }), '/p?a=x+y&d=5&e=true');
  assert.throws(() => resourcePath(ConfigMaps, 'ns', ''), /empty name/);
});

test('ApiError reasons and predicates', () => {
  const status = (code: number, reason: string) =>
    ApiError.fromResponse(code, { kind: 'Status', code, reason, message: `m ${reason}` });
  assert.equal(isNotFound(status(404, 'NotFound')), true);
  assert.equal(isConflict(status(409, 'Conflict')), true);
  assert.equal(isConflict(status(409, 'AlreadyExists')), false);
  assert.equal(isAlreadyExists(status(409, 'AlreadyExists')), true);
  assert.equal(isInvalid(status(422, 'Invalid')), true);
  assert.equal(isGone(status(410, 'Expired')), true);
  assert.equal(isGone(status(410, 'Gone')), true);
  assert.equal(isNotFound(new Error('x')), false);
  const plain = ApiError.fromResponse(404, 'page not found', { request: { method: 'GET', path: '/x' } });
  assert.equal(plain.reason, 'NotFound');
  assert.equal(plain.message, 'page not found');
  assert.equal(isNotFound(plain), true);
  const throttled = ApiError.fromResponse(429, { kind: 'Status', code: 429, details: { retryAfterSeconds: 3 } });
  assert.equal(throttled.retryAfterSeconds, 3);
  assert.equal(ApiError.fromStatus({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }).code, 410);
});

test('retryOnConflict retries conflicts only, with backoff, up to the attempt limit', async () => {
  const clock = new FakeClock(0);
  let calls = 0;
  const conflict = new ApiError(409, 'Conflict', 'modified');
  const p = retryOnConflict(
    async () => {
      calls++;
      if (calls < 3) throw conflict;
      return 'done';
    },
    { clock, jitter: 0 },
  );
  await clock.advance(10); // first delay
  await clock.advance(20); // second delay
  assert.equal(await p, 'done');
  assert.equal(calls, 3);

  calls = 0;
  await assert.rejects(
    retryOnConflict(async () => {
      calls++;
      throw new ApiError(404, 'NotFound', 'gone');
    }),
    /gone/,
  );
  assert.equal(calls, 1, 'non-conflicts are not retried');

  calls = 0;
  const q = retryOnConflict(
    async () => {
      calls++;
      throw conflict;
    },
    { clock, attempts: 2, jitter: 0 },
  );
  const rejected = assert.rejects(q, /modified/);
  await clock.advance(1000);
  await rejected;
  assert.equal(calls, 2);
});

test('TokenBucket allows a burst, then paces at qps', async () => {
  const clock = new FakeClock(0);
  const b = new TokenBucket({ qps: 10, burst: 3 }, clock);
  const done: number[] = [];
  for (let i = 0; i < 5; i++) void b.take().then(() => done.push(clock.now()));
  await clock.advance(0);
  assert.deepEqual(done, [0, 0, 0]);
  await clock.advance(100);
  assert.deepEqual(done, [0, 0, 0, 100]);
  await clock.advance(100);
  assert.deepEqual(done, [0, 0, 0, 100, 200]);
  const ac = new AbortController();
  const p = b.take(ac.signal);
  ac.abort(new Error('cancel'));
  await assert.rejects(p, /cancel/);
  assert.throws(() => new TokenBucket({ qps: 0, burst: 1 }), RangeError);
});

test('watch decoding splits across chunks, skips malformed lines, and reads a final unterminated line', async () => {
  const ev = (type: string, name: string) => JSON.stringify({ type, object: { metadata: { name } } });
  const text = `${ev('ADDED', 'a')}\n{garbage\n\n${ev('NOPE', 'x')}\n${ev('MODIFIED', 'b')}\n["array"]\n${ev('DELETED', 'c')}`;
  const bytes = Buffer.from(text);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
  }
  const bad: string[] = [];
  const out: string[] = [];
  for await (const e of decodeWatchStream<{ metadata: { name: string } }>(chunks(), (line) => bad.push(line))) {
    out.push(`${e.type}:${e.object.metadata.name}`);
  }
  assert.deepEqual(out, ['ADDED:a', 'MODIFIED:b', 'DELETED:c']);
  assert.equal(bad.length, 3);
  // Multi-byte characters split across chunks survive.
  const uni = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'é✓' } } })}\n`);
  async function* split() {
    yield uni.subarray(0, 40);
    yield uni.subarray(40);
  }
  for await (const e of decodeWatchStream<{ metadata: { name: string } }>(split(), () => assert.fail())) {
    assert.equal(e.object.metadata.name, 'é✓');
  }
  assert.throws(() => parseWatchLine('{"type":"ADDED"}'), /without an object/);
});
