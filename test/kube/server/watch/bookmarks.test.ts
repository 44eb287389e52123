// Watch bookmarks as kube-apiserver's watch cache sends them
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go, nextBookmarkTime): every
// bookmark interval, and one 2 s before the watch's timeoutSeconds deadline, seen through the
// official Python client's watch with allow_watch_bookmarks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { runPython } from '../../../helpers/python.ts';
import { nextBookmarkAt } from '../../../../src/kube/server/resource/bookmark-timer.ts';

test('nextBookmarkAt: the interval, or 2 s before the deadline, and none once that has passed', () => {
  assert.equal(nextBookmarkAt(1000, 60_000), 61_000);
  assert.equal(nextBookmarkAt(1000, 60_000, 1000 + 10_000), 9_000);
  assert.equal(nextBookmarkAt(1000, 5_000, 1000 + 120_000), 6_000);
  assert.equal(nextBookmarkAt(1000, 60_000, 1000 + 1_500), undefined);
});

let cp: TestCluster;
before(async () => {
  // The default interval (a minute): the only bookmark due within the watch is the pre-timeout one.
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

test('a watch with allowWatchBookmarks and timeoutSeconds gets a BOOKMARK about 2 s before it closes', async () => {
  const script = `
import json, sys, time
from kubernetes import client, config, watch
config.load_kube_config(sys.argv[1])
v1 = client.CoreV1Api()
rv = v1.list_namespaced_config_map('default').metadata.resource_version
start = time.monotonic()
events = []
for e in watch.Watch().stream(v1.list_namespaced_config_map, 'default', resource_version=rv,
                              allow_watch_bookmarks=True, timeout_seconds=5):
    events.append({'type': e['type'], 'at': time.monotonic() - start,
                   'rv': e['raw_object']['metadata'].get('resourceVersion'), 'kind': e['raw_object'].get('kind')})
print(json.dumps({'events': events, 'closed': time.monotonic() - start}))
`;
  const r = await runPython(cp.kubeconfigPath, script, 30_000);
  assert.equal(r.code, 0, r.stderr);
  const out = r.json() as { events: Array<{ type: string; at: number; rv: string; kind: string }>; closed: number };
  assert.deepEqual(
    out.events.map((e) => e.type),
    ['BOOKMARK'],
  );
  const [bookmark] = out.events;
  assert.equal(bookmark.kind, 'ConfigMap');
  assert.match(bookmark.rv, /^\d+$/);
  assert.ok(bookmark.at > 2 && bookmark.at < 4.5, `bookmark at ${bookmark.at}s`);
  assert.ok(out.closed >= 4.5 && out.closed - bookmark.at > 1, `closed at ${out.closed}s`);
});
