import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps, EventRecorder, Events } from '../../../src/runtime/index.ts';
import type { CoreEvent, KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { startTestCluster } from '../../helpers/runtime-cluster.ts';
import type { TestCluster } from '../../helpers/runtime-cluster.ts';

describe('EventRecorder against the embedded control plane', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  before(async () => {
    cluster = await startTestCluster();
    client = cluster.client();
  });
  after(async () => {
    await cluster.stop();
  });

  it('POSTs the first occurrence and PATCHes repeats into one Event', async () => {
    const cm = await client.create<KubeObject>(ConfigMaps, { metadata: { name: 'subject', namespace: 'default' } });
    const rec = new EventRecorder(client, { component: 'test-controller', instance: 'replica-1' });
    for (let i = 0; i < 3; i++) rec.warning(cm, 'SyncFailed', 'backend unreachable');
    rec.normal(cm, 'Synced', 'all good');
    await rec.flush();
    const list = await client.list<CoreEvent>(Events, {
      namespace: 'default',
      fieldSelector: 'involvedObject.name=subject',
    });
    const byReason = new Map(list.items.map((e) => [e.reason, e]));
    assert.equal(list.items.length, 2);
    const failed = byReason.get('SyncFailed') as CoreEvent;
    assert.equal(failed.count, 3);
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.involvedObject.uid, cm.metadata.uid);
    assert.equal(failed.source.component, 'test-controller');
    assert.equal(byReason.get('Synced')?.count, 1);
  });
});
