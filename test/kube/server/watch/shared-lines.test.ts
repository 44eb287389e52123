// An event is serialised once and the same bytes go to every watcher (issue #15: 1,000 watchers of
// a 1 MB ConfigMap held 1 GB), as kube's watch cache shares one cachingObject per event
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go). A watcher that stops
// reading is closed once its unsent bytes pass the bound, so it relists, while the others go on
// (kube's cacher terminates a watcher it cannot deliver to: cacher.go, dispatchEvent).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call, createNamespace } from '../../../helpers/https.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { watchLineStats } from '../../../../src/kube/server/resource/watch-lines.ts';
import { openWatch } from './raw-watch.ts';

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
  await createNamespace(cp, 'fan');
  await createNamespace(cp, 'slow');
});
after(async () => {
  await cp?.stop();
});

const listRv = async (ns: string): Promise<string> => {
  const r = await call(cp, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
  return (r.json.metadata as { resourceVersion: string }).resourceVersion;
};

test('two watchers get the same bytes for a change, encoded once', async () => {
  const rv = await listRv('fan');
  const a = await openWatch(cp, `/api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=${rv}`);
  const b = await openWatch(cp, `/api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=${rv}`);
  await waitFor(() => cp.internals.watches.size === 2, 'both watches registered');
  const before = watchLineStats.encoded;
  const r = await call(cp, 'POST', '/api/v1/namespaces/fan/configmaps', {
    metadata: { name: 'one' },
    data: { k: 'v' },
  });
  assert.equal(r.code, 201, r.text);
  await a.waitForLines(1);
  await b.waitForLines(1);
  assert.ok(a.lines[0].equals(b.lines[0]));
  assert.match(a.lines[0].toString(), /^\{"type":"ADDED","object":\{.*"name":"one"/);
  assert.equal(watchLineStats.encoded - before, 1);
  a.close();
  b.close();
  await waitFor(() => cp.internals.watches.size === 0, 'watches closed');
});

test('watchers from resourceVersion 0 share the encoded initial events', async () => {
  const first = await openWatch(cp, '/api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=0');
  // kube-root-ca.crt and `one`.
  await first.waitForLines(2);
  const before = watchLineStats.encoded;
  const second = await openWatch(cp, '/api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=0');
  await second.waitForLines(2);
  assert.deepEqual(second.lines, first.lines);
  assert.equal(watchLineStats.encoded - before, 0);
  first.close();
  second.close();
  await waitFor(() => cp.internals.watches.size === 0, 'watches closed');
});

test('a watcher that stops reading is closed; the one that reads gets every event', async () => {
  const created = await call(cp, 'POST', '/api/v1/namespaces/slow/configmaps', {
    metadata: { name: 'big' },
    data: { n: '0', big: 'z'.repeat(1_000_000) },
  });
  assert.equal(created.code, 201, created.text);
  const rv = (created.json.metadata as { resourceVersion: string }).resourceVersion;
  const stalled = await openWatch(cp, `/api/v1/namespaces/slow/configmaps?watch=1&resourceVersion=${rv}`);
  stalled.pause();
  const reader = await openWatch(cp, `/api/v1/namespaces/slow/configmaps?watch=1&resourceVersion=${rv}`);
  await waitFor(() => cp.internals.watches.size === 2, 'both watches registered');
  // 40 MB of events: more than the 16 MiB bound plus what the kernel's socket buffers take.
  const patches = 40;
  for (let i = 1; i <= patches; i++) {
    const r = await call(
      cp,
      'PATCH',
      '/api/v1/namespaces/slow/configmaps/big',
      { data: { n: String(i) } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    assert.equal(r.code, 200, r.text);
  }
  await waitFor(() => cp.internals.watches.size === 1, 'the stalled watch closed by the server', 30_000);
  await reader.waitForLines(patches, 30_000);
  assert.ok(!reader.ended);
  // What the stalled watcher had been sent arrives, then the end of the stream.
  stalled.resume();
  await waitFor(() => stalled.ended, 'the stalled watch to end', 30_000);
  assert.ok(stalled.lines.length < patches, `stalled watcher got ${stalled.lines.length} events`);
  reader.close();
});
