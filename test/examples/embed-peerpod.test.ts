// The embedding example: the PeerPodConfig and PeerPod reconcilers, taken from the public entry
// (src/peerpod/index.ts = peerpods/peerpod), run inside another operator's manager next to its own
// controller, and each does its job there.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import {
  ConfigMaps,
  KubeClient,
  Manager,
  Namespaces,
  Nodes,
  Pods,
  Secrets,
  installCrds,
  isNotFound,
  silentLogger,
} from '../../src/runtime/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPodConfigs, PeerPods, allCrds, providers } from '../../src/peerpod/index.ts';
import type { PeerPod, PeerPodConfig } from '../../src/peerpod/index.ts';
import { setupFleetOperator } from '../../examples/embed-peerpod/operator.ts';
import { INVENTORY_NAME } from '../../examples/embed-peerpod/inventory.ts';
import { startTestCluster, type TestCluster } from '../helpers/control-plane.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'fleet-system';
const VM = 'kata.peerpods.io/vm';

interface NodeObject extends KubeObject {
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

describe('embed-peerpod example: peer-pod reconcilers in a foreign manager', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let manager: Manager;
  let running: Promise<void>;
  let stateDir: string;

  before(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'peerpods-embed-'));
    cluster = await startTestCluster({ nodes: 2 });
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
    await installCrds(client, allCrds(), { fieldManager: 'fleet-operator' });
    await client.create(Namespaces, { metadata: { name: NS } });
    // The PeerPod controller's settings: a simulated cloud whose VMs live in stateDir, so this test
    // sees the same cloud as the controller.
    await client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: NS },
      data: { CLOUD_PROVIDER: 'simulated', SIMULATED_STATE_DIR: stateDir },
    });
    await client.create(Secrets, { metadata: { name: 'peer-pods-secret', namespace: NS }, data: {} });

    manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: new Registry(),
      server: false,
      handleSignals: false,
    });
    setupFleetOperator(manager, { namespace: NS });
    running = manager.start();
  });

  after(async () => {
    await manager.stop();
    await running;
    client.close();
    await cluster.stop();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('PeerPodConfig: status and node capacity, seen by the host controller too', async () => {
    await client.create<PeerPodConfig>(PeerPodConfigs, {
      apiVersion: 'confidentialcontainers.org/v1alpha1',
      kind: 'PeerPodConfig',
      metadata: { name: 'peerpodconfig', namespace: NS },
      spec: { limitPerNode: 3 },
    });
    let config: PeerPodConfig | undefined;
    await waitFor(
      async () => {
        config = await client.get<PeerPodConfig>(PeerPodConfigs, 'peerpodconfig', NS);
        return config.status?.totalVMs === 6;
      },
      'PeerPodConfig status.totalVMs = 6',
      30_000,
      50,
    );
    assert.equal(config!.status?.nodes, 2);
    const advertised = config!.status?.conditions?.find((c) => c.type === 'CapacityAdvertised');
    assert.equal(advertised?.status, 'True');

    const { items } = await client.list<NodeObject>(Nodes);
    assert.deepEqual(
      items.map((n) => [n.status?.capacity?.[VM], n.status?.allocatable?.[VM]]),
      [
        ['3', '3'],
        ['3', '3'],
      ],
    );
    // The host operator's own controller, in the same manager, sees the capacity written.
    await waitFor(
      async () => {
        const cm = await client.get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, INVENTORY_NAME, NS);
        return cm.data?.vms === '6';
      },
      'node-inventory to count 6 VMs',
      15_000,
      50,
    );
  });

  it('PeerPod: the VM of a PeerPod whose adaptor never deleted it is deleted, then the PeerPod goes', async () => {
    const cloud = new providers.SimulatedProvider({ stateDir });
    const vm = await cloud.createInstance({
      podName: 'app',
      podNamespace: NS,
      sandboxId: 'sandbox-1',
      vcpus: 0,
      memoryMiB: 0,
      tags: {},
    });
    assert.equal((await cloud.listInstances({})).length, 1);

    // What an adaptor records for its pod; the adaptor then dies and never releases the finalizer.
    const pod = await client.create<KubeObject>(Pods, {
      metadata: { name: 'app', namespace: NS },
      spec: { runtimeClassName: 'kata-remote', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] },
    });
    const peerPod = await client.create<PeerPod>(PeerPods, {
      apiVersion: 'confidentialcontainers.org/v1alpha1',
      kind: 'PeerPod',
      metadata: {
        name: 'app-resource-abcde',
        namespace: NS,
        finalizers: [PEERPOD_FINALIZER],
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: 'app',
            uid: pod.metadata.uid as string,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { cloudProvider: 'simulated', instanceID: vm.id },
    });
    assert.ok(peerPod.metadata.uid);

    // The pod goes; the garbage collector deletes its PeerPod, which waits on the finalizer.
    await client.delete(Pods, 'app', NS, { gracePeriodSeconds: 0 });
    await waitFor(
      async () => {
        try {
          await client.get(PeerPods, 'app-resource-abcde', NS);
          return false;
        } catch (err) {
          if (isNotFound(err)) return true;
          throw err;
        }
      },
      'the PeerPod to be gone',
      30_000,
      50,
    );
    assert.deepEqual(await cloud.listInstances({}), []);
  });
});
