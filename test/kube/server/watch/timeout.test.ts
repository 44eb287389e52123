// A watch's timeoutSeconds beyond Node's 2^31-1 ms timer limit (issue #15: timeoutSeconds=2147484
// closed the watch at once with a TimeoutOverflowWarning). kube takes any timeoutSeconds as the
// watch's duration (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go, ListResource).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call, createNamespace } from '../../../helpers/https.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { openWatch } from './raw-watch.ts';

let cp: TestCluster;
const warnings: string[] = [];
const onWarning = (w: Error): void => void warnings.push(w.name);
before(async () => {
  process.on('warning', onWarning);
  cp = await startTestCluster();
  await createNamespace(cp, 'long');
});
after(async () => {
  process.off('warning', onWarning);
  await cp?.stop();
});

for (const timeoutSeconds of ['2147484', '99999999999']) {
  test(`a watch with timeoutSeconds=${timeoutSeconds} stays open`, async () => {
    const list = await call(cp, 'GET', '/api/v1/namespaces/long/configmaps');
    const rv = (list.json.metadata as { resourceVersion: string }).resourceVersion;
    const w = await openWatch(
      cp,
      `/api/v1/namespaces/long/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=${timeoutSeconds}&allowWatchBookmarks=true`,
    );
    assert.equal(w.status, 200);
    const name = `a-${timeoutSeconds}`;
    await call(cp, 'POST', '/api/v1/namespaces/long/configmaps', { metadata: { name } });
    await w.waitForLines(1);
    assert.match(w.lines[0].toString(), new RegExp(`"type":"ADDED".*"name":"${name}"`));
    // A second event after the first still arrives on the same stream.
    await call(cp, 'POST', '/api/v1/namespaces/long/configmaps', { metadata: { name: `b-${timeoutSeconds}` } });
    await w.waitForLines(2);
    assert.equal(w.ended, false);
    assert.equal(cp.internals.watches.size, 1);
    assert.deepEqual(
      warnings.filter((n) => n === 'TimeoutOverflowWarning'),
      [],
    );
    w.close();
    await waitFor(() => cp.internals.watches.size === 0, 'the watch closed by the client');
  });
}
