import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Events, Manager, Pods, isConditionTrue, silentLogger } from '../../src/runtime/index.ts';
import type { Controller, KubeClient, KubeObject } from '../../src/runtime/index.ts';
import { PodSets, installCrd } from '../../examples/podset/api.ts';
import type { PodSet } from '../../examples/podset/api.ts';
import { applyPodSet, setupPodSetController } from '../../examples/podset/controller.ts';
import { startTestCluster } from '../helpers/runtime-cluster.ts';
import type { TestCluster } from '../helpers/runtime-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

describe('PodSet example against the embedded control plane', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let manager: Manager;
  let running: Promise<void>;
  let controller: Controller;

  before(async () => {
    cluster = await startTestCluster();
    const registry = new Registry();
    client = cluster.client(registry);
    await installCrd(client);
    manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });
    controller = setupPodSetController(manager);
    running = manager.start();
  });

  after(async () => {
    await manager.stop();
    await running;
    await cluster.stop();
  });

  async function activePods(): Promise<KubeObject[]> {
    const list = await client.list<KubeObject>(Pods, {
      namespace: 'default',
      labelSelector: 'examples.peerpods.io/podset=demo',
    });
    return list.items.filter((p) => !p.metadata.deletionTimestamp);
  }

  async function converged(replicas: number): Promise<boolean> {
    const ps = await client.get<PodSet>(PodSets, 'demo', 'default');
    const pods = await activePods();
    return (
      pods.length === replicas &&
      ps.status?.replicas === replicas &&
      ps.status.observedGeneration === ps.metadata.generation &&
      isConditionTrue(ps.status.conditions, 'Ready')
    );
  }

  it('creates the pods, owned by the PodSet, and reports status', async () => {
    await applyPodSet(manager, 'demo', 'default', 3);
    await waitFor(() => converged(3), '3 pods and Ready status', 20_000);
    const set = await client.get<PodSet>(PodSets, 'demo', 'default');
    for (const p of await activePods()) {
      const ref = p.metadata.ownerReferences?.[0];
      assert.equal(ref?.uid, set.metadata.uid);
      assert.equal(ref?.controller, true);
    }
    const events = await client.list<KubeObject & { reason?: string }>(Events, {
      namespace: 'default',
      fieldSelector: 'involvedObject.name=demo',
    });
    assert.ok(events.items.some((e) => e.reason === 'SuccessfulCreate'));
  });

  it('scales up and down', async () => {
    await applyPodSet(manager, 'demo', 'default', 5);
    await waitFor(() => converged(5), 'scale up to 5', 20_000);
    await applyPodSet(manager, 'demo', 'default', 1);
    await waitFor(() => converged(1), 'scale down to 1', 20_000);
  });

  it('replaces a deleted pod and never overshoots', async () => {
    const [victim] = await activePods();
    await client.delete(Pods, victim.metadata.name as string, 'default');
    await waitFor(
      async () => {
        const pods = await activePods();
        return pods.length === 1 && pods[0].metadata.name !== victim.metadata.name;
      },
      'a replacement pod',
      20_000,
    );
    await waitFor(() => converged(1), 'status back to 1', 20_000);
  });

  it('does not create duplicates when a scale-up is followed by a burst of reconciles', async () => {
    await applyPodSet(manager, 'demo', 'default', 4);
    for (let i = 0; i < 20; i++) {
      controller.enqueue({ namespace: 'default', name: 'demo' });
      await new Promise((r) => setImmediate(r));
    }
    await waitFor(() => converged(4), 'scale up to 4', 20_000);
    await waitFor(() => controller.queue?.len() === 0 && controller.queue.processingCount() === 0, 'queue idle');
    assert.equal((await activePods()).length, 4, 'read-your-writes kept the count exact');
  });
});
