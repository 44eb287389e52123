// An adaptor caches its own node's PeerPods and those without a node label (upstream's, an earlier
// version's), never another node's: with one cluster-wide cache per node, every PeerPod write went
// to every adaptor. The PeerPods it writes carry the label unless the node name cannot be a label value.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient, Manager, OWNER_UID_INDEX, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPods } from '../../../src/peerpod/api/index.ts';
import type { PeerPod } from '../../../src/peerpod/api/index.ts';
import { NODE_LABEL, NodePeerPods } from '../../../src/peerpod/adaptor/node-peerpods.ts';
import { newPeerPod } from '../../../src/peerpod/adaptor/peerpod-record.ts';
import { eventually, startEnv } from './helpers.ts';
import type { Env } from './helpers.ts';

const pod = (name: string, uid: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid },
});

describe('adaptor PeerPod cache, scoped to its node', { timeout: 60_000 }, () => {
  let env: Env;
  let manager: Manager;
  let client: KubeClient;
  let running: Promise<void>;
  let cache: NodePeerPods;
  const longNode = `n${'x'.repeat(70)}`;

  before(async () => {
    env = await startEnv();
    client = KubeClient.fromKubeconfigString(env.cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
    manager = new Manager({ client, logger: silentLogger(), server: false, handleSignals: false });
    cache = new NodePeerPods(manager, 'node-1');
    running = manager.start();
  });

  after(async () => {
    await manager?.stop();
    await running;
    client?.close();
    await env?.stop();
  });

  it('holds its node and unlabelled PeerPods, not another node', async () => {
    const mine = newPeerPod(pod('a', 'uid-a'), 'simulated', 'node-1');
    assert.equal(mine.metadata.labels?.[NODE_LABEL], 'node-1');
    const theirs = newPeerPod(pod('b', 'uid-b'), 'simulated', 'node-2');
    const long = newPeerPod(pod('c', 'uid-c'), 'simulated', longNode);
    assert.equal(long.metadata.labels, undefined, 'a name longer than 63 characters is no label value');
    // As upstream's adaptor writes it: no labels, no annotations. (The finalizers keep these PeerPods
    // of pods that do not exist from the garbage collector.)
    const upstream: PeerPod = {
      apiVersion: mine.apiVersion,
      kind: 'PeerPod',
      metadata: {
        name: 'd-resource-abcde',
        namespace: 'default',
        finalizers: mine.metadata.finalizers,
        ownerReferences: mine.metadata.ownerReferences,
      },
      spec: { cloudProvider: 'simulated', instanceID: 'sim-9' },
    };
    for (const pp of [mine, theirs, long, upstream]) await client.create(PeerPods, pp);
    await eventually(() => cache.list('default').length === 3, { what: 'the cache to fill' });
    const names = cache
      .list('default')
      .map((pp) => pp.metadata.name)
      .sort();
    assert.deepEqual(names, [mine.metadata.name, long.metadata.name, 'd-resource-abcde'].sort());
    assert.equal(cache.get('default', theirs.metadata.name as string), undefined);
    // Found by owner in either cache: this node's PeerPod and the upstream one share pod a's UID.
    assert.equal(cache.byIndex(OWNER_UID_INDEX, 'uid-a').length, 2);
    // A write is waited for in the cache that will hold it.
    assert.notEqual(cache.holding(mine), cache.holding(upstream));
    assert.equal(cache.holding(long), cache.holding(upstream));
    assert.equal(cache.scopes.length, 2);
  });

  it('a node whose name cannot be a label value watches only unlabelled PeerPods', () => {
    const other = new NodePeerPods(manager, longNode);
    assert.deepEqual(other.scopes, [{ labelSelector: `!${NODE_LABEL}` }]);
  });
});
