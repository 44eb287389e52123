// A watch without timeoutSeconds still ends: kube-apiserver gives it a random timeout between
// --min-request-timeout and twice that (1800–3600 s by default), so that its client relists and
// watches opened together do not all end together
// (staging/src/k8s.io/apiserver/pkg/endpoints/request/timeout.go, GetTimeoutForWatch; used by
// handlers/get.go). timeoutSeconds=0 counts as absent; a negative one ends the watch at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../../../src/apimachinery/index.ts';
import { watchTimeoutMs } from '../../../../src/kube/server/resource/deadline.ts';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call, createNamespace } from '../../../helpers/https.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { openWatch } from './raw-watch.ts';

test('watchTimeoutMs: the client timeout, else a random one in [min, 2×min), else none', () => {
  const random = seededRandom(15);
  const spread = Array.from({ length: 200 }, () => watchTimeoutMs(undefined, 1800, random) as number);
  for (const ms of spread) assert.ok(ms >= 1_800_000 && ms < 3_600_000, `${ms}`);
  // Spread over the range, not one value.
  assert.ok(Math.min(...spread) < 2_200_000 && Math.max(...spread) > 3_200_000);
  assert.equal(
    watchTimeoutMs(0, 1800, () => 0.5),
    2_700_000,
  );
  assert.equal(
    watchTimeoutMs(7, 1800, () => 0.5),
    7_000,
  );
  assert.equal(
    watchTimeoutMs(-1, 1800, () => 0.5),
    -1_000,
  );
  assert.equal(
    watchTimeoutMs(undefined, 0, () => 0.5),
    undefined,
  );
});

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ minRequestTimeoutSeconds: 1 });
  await createNamespace(cp, 'timed');
});
after(async () => {
  await cp?.stop();
});

for (const query of ['', '&timeoutSeconds=0']) {
  test(`a watch with${query ? ` ${query.slice(1)}` : 'out timeoutSeconds'} ends between 1× and 2× minRequestTimeout`, async () => {
    const started = Date.now();
    const w = await openWatch(cp, `/api/v1/namespaces/timed/configmaps?watch=1${query}`);
    assert.equal(w.status, 200);
    await waitFor(() => w.ended, 'the server to end the watch', 10_000);
    const lasted = Date.now() - started;
    assert.ok(lasted >= 950 && lasted < 2_500, `the watch lasted ${lasted} ms`);
    await waitFor(() => cp.internals.watches.size === 0, 'the watch unregistered');
  });
}

test('a watch with a negative timeoutSeconds ends at once, as the expired timer does in kube', async () => {
  const started = Date.now();
  const w = await openWatch(cp, '/api/v1/namespaces/timed/configmaps?watch=1&timeoutSeconds=-5');
  assert.equal(w.status, 200);
  await waitFor(() => w.ended, 'the server to end the watch', 5_000);
  assert.ok(Date.now() - started < 900);
});

test('a watch with timeoutSeconds keeps it, whatever minRequestTimeout is', async () => {
  const list = await call(cp, 'GET', '/api/v1/namespaces/timed/configmaps');
  const rv = (list.json.metadata as { resourceVersion: string }).resourceVersion;
  const path = `/api/v1/namespaces/timed/configmaps?watch=1&resourceVersion=${rv}`;
  const bounded = await openWatch(cp, path);
  const explicit = await openWatch(cp, `${path}&timeoutSeconds=5`);
  // Once the watch without timeoutSeconds has ended (≤ 2 s), the one with 5 s is still open and delivers.
  await waitFor(() => bounded.ended, 'the watch without timeoutSeconds to end', 10_000);
  assert.equal(explicit.ended, false);
  await call(cp, 'POST', '/api/v1/namespaces/timed/configmaps', { metadata: { name: 'late' } });
  await explicit.waitForLines(1);
  assert.match(explicit.lines[0].toString(), /"type":"ADDED".*"name":"late"/);
  await waitFor(() => explicit.ended, 'the 5 s timeout', 10_000);
});
