// Watches with field and label selectors, one per node as node agents watch their pods: each
// watcher gets exactly its node's events (entry, change, exit as DELETED), and a change is parsed a
// few times in all rather than once per watcher (100 node-scoped watches made every pod write cost
// 200 parses of the pod in the peer-pod fleet benchmark).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStorage } from '../../../src/kube/storage/memory.ts';
import { builtinResourceDefs } from '../../../src/kube/registry/builtins.ts';
import { ObjectFilter } from '../../../src/kube/registry/filter.ts';
import { objectKey } from '../../../src/kube/registry/keys.ts';
import { startWatch } from '../../../src/kube/registry/watch.ts';
import type { WatchEventType } from '../../../src/kube/registry/watch.ts';

const pods = builtinResourceDefs().find((d) => d.group === '' && d.resource === 'pods')!;

const pod = (name: string, node: string, tier = 'web') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { tier } },
  spec: { nodeName: node, containers: [{ name: 'app', image: 'pause' }] },
});

test('100 node-scoped watches: each sees only its node, and a change is parsed a few times, not 100', () => {
  const storage = new MemoryStorage();
  const seen = new Map<string, Array<[WatchEventType, string]>>();
  const watches = [];
  for (let i = 0; i < 100; i++) {
    const node = `node-${i}`;
    seen.set(node, []);
    const filter = ObjectFilter.parse(pods, 'tier=web', `spec.nodeName=${node}`);
    watches.push(
      startWatch(
        storage,
        pods,
        'default',
        { filter, resourceVersion: String(storage.currentRevision()), allowBookmarks: false },
        {
          event: (type, json) =>
            seen.get(node)!.push([type, (JSON.parse(json) as { metadata: { name: string } }).metadata.name]),
          expired: () => assert.fail('no 410 expected'),
        },
      ),
    );
  }
  const key = objectKey(pods, 'default', 'a');
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
    parses++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  let created;
  try {
    created = storage.create(key, pod('a', 'node-7'));
  } finally {
    JSON.parse = parse;
  }
  // The sinks above parse what they receive: one delivery. The filters: the new text, once.
  assert.ok(parses <= 3, `${parses} parses for one change seen by 100 watchers`);
  storage.update(key, pod('a', 'node-7', 'api'), created.revision);
  storage.create(objectKey(pods, 'default', 'b'), pod('b', 'node-42'));
  for (const w of watches) w.stop();
  assert.deepEqual(seen.get('node-7'), [
    ['ADDED', 'a'],
    ['DELETED', 'a'],
  ]);
  assert.deepEqual(seen.get('node-42'), [['ADDED', 'b']]);
  const others = [...seen].filter(([n]) => n !== 'node-7' && n !== 'node-42');
  assert.ok(others.every(([, events]) => events.length === 0));
});
