import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigMaps,
  InformerFactory,
  silentLogger,
  waitForCache,
  CacheTimeoutError,
} from '../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { startTestCluster } from '../../helpers/runtime-cluster.ts';
import type { TestCluster } from '../../helpers/runtime-cluster.ts';

describe('waitForCache (read-your-writes)', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let factory: InformerFactory;
  before(async () => {
    cluster = await startTestCluster();
    client = cluster.client();
    factory = new InformerFactory(client, { logger: silentLogger(), metricsRegistry: null });
  });
  after(async () => {
    await factory.stop();
    await cluster.stop();
  });

  it('resolves once the informer has seen our own write', async () => {
    const informer = factory.informerFor<KubeObject & { data?: Record<string, string> }>(ConfigMaps, {
      namespace: 'default',
    });
    factory.start();
    await factory.waitForSync();
    const written = await client.create<KubeObject & { data?: Record<string, string> }>(ConfigMaps, {
      metadata: { name: 'ryw', namespace: 'default' },
      data: { v: '1' },
    });
    await waitForCache(informer, written);
    assert.equal(informer.get('default', 'ryw')?.metadata.resourceVersion, written.metadata.resourceVersion);
    const updated = await client.update(ConfigMaps, { ...written, data: { v: '2' } });
    await waitForCache(informer, updated);
    assert.equal(informer.get('default', 'ryw')?.data?.v, '2');
  });

  it('fails with CacheTimeoutError when the cache does not catch up', async () => {
    const never = { waitForResourceVersion: async () => false };
    const obj = { kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default', resourceVersion: '999999' } };
    await assert.rejects(waitForCache(never, obj, { timeoutMs: 10 }), CacheTimeoutError);
    assert.equal(await waitForCache(never, obj, { throwOnTimeout: false }), false);
  });
});
