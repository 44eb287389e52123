import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Endpoints, Events } from '../../../../src/runtime/index.ts';
import type { EventRecorder, KubeClient, KubeObject } from '../../../../src/runtime/index.ts';
import {
  cleanupEndpointIpsHandler,
  endpointCleanupPlan,
  withoutStaleAddresses,
} from '../../../../src/kvm/handlers/deleter/cleanup-endpoint-ips.ts';
import type { EndpointSubset, EndpointsObject } from '../../../../src/kvm/handlers/deleter/cleanup-endpoint-ips.ts';
import type { NodePod, WorkloadNode } from '../../../../src/kvm/handlers/deleter/cluster-nodes.ts';
import { fixedWorkloadClusters, installKvmCrds, recordingContext, sampleKvmConfig, testDeps } from '../../helpers.ts';
import { eventually } from '../../../helpers/control-plane.ts';
import {
  ID,
  createNamespace,
  createNodePod,
  createWorkloadNode,
  depsFor,
  nodePod,
  podName,
  startTwoClusters,
  workloadNode,
} from './fixtures.ts';
import type { TwoClusters } from './fixtures.ts';

const M1 = podName('master', 'm1');
const W1 = podName('worker', 'w1');
const W2 = podName('worker', 'w2');

function endpoints(name: string, subsets: EndpointSubset[]): EndpointsObject {
  return { metadata: { name, namespace: ID, resourceVersion: '7' }, subsets };
}

const addrs = (...ips: string[]): { ip: string }[] => ips.map((ip) => ({ ip }));

describe('endpointCleanupPlan + withoutStaleAddresses', () => {
  const cases: Array<{
    name: string;
    pods: NodePod[];
    nodes: WorkloadNode[];
    subsets: EndpointSubset[];
    /** The skip reason's start, or the IPs removed and the addresses left. */
    want: { skip: string } | { removed: string[]; left: string[][] };
  }> = [
    {
      name: 'no node pods: skip, a transient empty list must not empty the Endpoints',
      pods: [],
      nodes: [],
      subsets: [{ addresses: addrs('10.0.0.9') }],
      want: { skip: 'no node pods' },
    },
    {
      name: 'fewer workload nodes than pods: skip',
      pods: [nodePod(W1), nodePod(W2)],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1'] })],
      subsets: [{ addresses: addrs('10.0.0.1', '10.0.0.9') }],
      want: { skip: '2 node pods but 1 workload nodes' },
    },
    {
      name: 'more workload nodes than pods: skip',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1'] }), workloadNode(W2, { ips: ['10.0.0.2'] })],
      subsets: [{ addresses: addrs('10.0.0.9') }],
      want: { skip: '1 node pods but 2 workload nodes' },
    },
    {
      name: 'same count, different names: skip',
      pods: [nodePod(W1), nodePod(podName('worker', 'w3'))],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1'] }), workloadNode(W2, { ips: ['10.0.0.2'] })],
      subsets: [{ addresses: addrs('10.0.0.9') }],
      want: { skip: 'node pod' },
    },
    {
      name: 'same names listed in different orders: runs (upstream sorted nodes by pod names)',
      pods: [nodePod(W2), nodePod(M1), nodePod(W1)],
      nodes: [
        workloadNode(W1, { ips: ['10.0.0.1'] }),
        workloadNode(W2, { ips: ['10.0.0.2'] }),
        workloadNode(M1, { ips: ['10.0.0.3'] }),
      ],
      subsets: [{ addresses: addrs('10.0.0.1', '10.0.0.2', '10.0.0.9') }],
      want: { removed: ['10.0.0.9'], left: [['10.0.0.1', '10.0.0.2']] },
    },
    {
      name: 'all pods ready and no unknown IP: nothing removed',
      pods: [nodePod(W1), nodePod(W2)],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1'] }), workloadNode(W2, { ips: ['10.0.0.2'] })],
      subsets: [{ addresses: addrs('10.0.0.1', '10.0.0.2') }],
      want: { removed: [], left: [['10.0.0.1', '10.0.0.2']] },
    },
    {
      name: 'the IP of a node whose pod is not ready is removed',
      pods: [nodePod(W1), nodePod(W2, { ready: false })],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1'] }), workloadNode(W2, { ips: ['10.0.0.2'] })],
      subsets: [{ addresses: addrs('10.0.0.1', '10.0.0.2') }],
      want: { removed: ['10.0.0.2'], left: [['10.0.0.1']] },
    },
    {
      name: 'a NotReady node whose pod is ready keeps its IP (pod readiness decides, as upstream)',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1, { ready: 'False', ips: ['10.0.0.1'] })],
      subsets: [{ addresses: addrs('10.0.0.1') }],
      want: { removed: [], left: [['10.0.0.1']] },
    },
    {
      name: 'a pod being deleted but still ready keeps its IP: the drainer removes it',
      pods: [nodePod(M1, { deleting: true })],
      nodes: [workloadNode(M1, { ips: ['10.0.0.3'] })],
      subsets: [{ addresses: addrs('10.0.0.3') }],
      want: { removed: [], left: [['10.0.0.3']] },
    },
    {
      name: 'only InternalIPs count; an ExternalIP in the Endpoints is stale',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1', '10.0.1.1'], externalIps: ['192.0.2.1'] })],
      subsets: [{ addresses: addrs('10.0.0.1', '10.0.1.1', '192.0.2.1') }],
      want: { removed: ['192.0.2.1'], left: [['10.0.0.1', '10.0.1.1']] },
    },
    {
      name: 'every subset is swept, and one left without addresses is dropped',
      pods: [nodePod(W1)],
      nodes: [workloadNode(W1, { ips: ['10.0.0.1'] })],
      subsets: [{ addresses: addrs('10.0.0.8') }, { addresses: addrs('10.0.0.1', '10.0.0.9') }],
      want: { removed: ['10.0.0.8', '10.0.0.9'], left: [['10.0.0.1']] },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const plan = endpointCleanupPlan(tc.pods, tc.nodes);
      if ('skip' in tc.want) {
        assert.ok('skip' in plan, 'expected a skip');
        assert.ok(plan.skip.startsWith(tc.want.skip), plan.skip);
        return;
      }
      assert.ok('keep' in plan, `unexpected skip: ${'skip' in plan ? plan.skip : ''}`);
      const { endpoints: out, removed } = withoutStaleAddresses(endpoints('worker', tc.subsets), plan.keep);
      assert.deepEqual(removed, tc.want.removed);
      assert.deepEqual(
        (out.subsets ?? []).map((s) => (s.addresses ?? []).map((a) => a.ip)),
        tc.want.left,
      );
    });
  }
});

describe('withoutStaleAddresses (shapes)', () => {
  const ports = [{ name: 'api', port: 443, protocol: 'TCP' }];
  const cases: Array<{ name: string; subsets?: EndpointSubset[]; keep: string[]; want?: EndpointSubset[] }> = [
    { name: 'no subsets: unchanged', subsets: undefined, keep: [] },
    {
      name: 'nothing stale: the same object back',
      subsets: [{ addresses: addrs('1.1.1.1'), ports }],
      keep: ['1.1.1.1'],
    },
    {
      name: 'notReadyAddresses are left alone, even unknown ones',
      subsets: [{ addresses: addrs('1.1.1.1', '9.9.9.9'), notReadyAddresses: addrs('8.8.8.8'), ports }],
      keep: ['1.1.1.1'],
      want: [{ addresses: addrs('1.1.1.1'), notReadyAddresses: addrs('8.8.8.8'), ports }],
    },
    {
      name: 'a subset whose addresses all go but with notReadyAddresses stays, without addresses',
      subsets: [{ addresses: addrs('9.9.9.9'), notReadyAddresses: addrs('8.8.8.8'), ports }],
      keep: [],
      want: [{ notReadyAddresses: addrs('8.8.8.8'), ports }],
    },
    {
      name: 'every address stale: no subsets left (the Endpoints object itself stays)',
      subsets: [{ addresses: addrs('9.9.9.9'), ports }],
      keep: [],
      want: [],
    },
    {
      name: 'address fields (targetRef, nodeName) and ports are kept on survivors',
      subsets: [
        { addresses: [{ ip: '1.1.1.1', nodeName: 'n', targetRef: { kind: 'Pod' } }, { ip: '9.9.9.9' }], ports },
      ],
      keep: ['1.1.1.1'],
      want: [{ addresses: [{ ip: '1.1.1.1', nodeName: 'n', targetRef: { kind: 'Pod' } }], ports }],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const input = endpoints('master', tc.subsets as EndpointSubset[]);
      if (tc.subsets === undefined) delete input.subsets;
      const { endpoints: out, removed } = withoutStaleAddresses(input, new Set(tc.keep));
      if (tc.want === undefined) {
        assert.equal(out, input, 'the same object when nothing is removed');
        assert.deepEqual(removed, []);
        return;
      }
      assert.deepEqual(out.subsets, tc.want);
      assert.equal(out.metadata.resourceVersion, '7', 'the resourceVersion guard is kept');
    });
  }
});

describe('cleanupendpointips handler (embedded control planes)', () => {
  let clusters: TwoClusters;
  const c = sampleKvmConfig({ id: ID, masters: 1, workers: 2 });

  before(async () => {
    clusters = await startTwoClusters();
    await installKvmCrds(clusters.mcClient);
    await createNamespace(clusters.mcClient, ID);
  });
  after(async () => clusters?.stop());

  async function writeEndpoints(name: string, subsets: EndpointSubset[]): Promise<void> {
    const existing = await clusters.mcClient.get<EndpointsObject>(Endpoints, name, ID).catch(() => undefined);
    if (existing) await clusters.mcClient.update(Endpoints, { ...existing, subsets });
    else await clusters.mcClient.create(Endpoints, { metadata: { name, namespace: ID }, subsets });
  }
  const ipsOf = async (name: string): Promise<{ ready: string[]; notReady: string[] }> => {
    const ep = await clusters.mcClient.get<EndpointsObject>(Endpoints, name, ID);
    return {
      ready: (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)),
      notReady: (ep.subsets ?? []).flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip)),
    };
  };

  it('does nothing while the workload cluster is unavailable', async () => {
    const deps = testDeps(clusters.mcClient, { workload: fixedWorkloadClusters() });
    const ctx = recordingContext();
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, ctx);
    assert.deepEqual(ctx.flags, {});
  });

  it('leaves the Endpoints alone while pods and nodes disagree, then removes stale IPs', async () => {
    await createNodePod(clusters.mcClient, c, M1);
    await createNodePod(clusters.mcClient, c, W1);
    await createNodePod(clusters.mcClient, c, W2, { ready: false });
    await createWorkloadNode(clusters.wcClient, M1, { ips: ['10.1.0.1'] });
    await createWorkloadNode(clusters.wcClient, W1, { ips: ['10.1.0.2'] });
    await writeEndpoints('master', [
      { addresses: addrs('10.1.0.1', '10.1.0.99'), ports: [{ name: 'api', port: 443 }] },
    ]);
    await writeEndpoints('worker', [
      { addresses: addrs('10.1.0.2', '10.1.0.3'), notReadyAddresses: addrs('10.1.0.77'), ports: [{ port: 30010 }] },
    ]);
    const { deps, events } = depsFor(clusters);

    // Three pods, two nodes: one view is behind, nothing may be judged stale.
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, recordingContext());
    assert.deepEqual(await ipsOf('master'), { ready: ['10.1.0.1', '10.1.0.99'], notReady: [] });
    assert.equal(events.length, 0);

    // W2's VM registers: views agree. W2's pod is not ready, so its IP goes; so does the unknown one.
    await createWorkloadNode(clusters.wcClient, W2, { ips: ['10.1.0.3'] });
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, recordingContext());
    assert.deepEqual(await ipsOf('master'), { ready: ['10.1.0.1'], notReady: [] });
    assert.deepEqual(await ipsOf('worker'), { ready: ['10.1.0.2'], notReady: ['10.1.0.77'] });
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.on, e.message]),
      [
        ['Normal', 'StaleEndpointRemoved', ID, `Removed stale IP 10.1.0.99 from Endpoints ${ID}/master`],
        ['Normal', 'StaleEndpointRemoved', ID, `Removed stale IP 10.1.0.3 from Endpoints ${ID}/worker`],
      ],
    );

    // A second run has nothing left to do: no write, no event.
    const rv = (await clusters.mcClient.get<KubeObject>(Endpoints, 'worker', ID)).metadata.resourceVersion;
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, recordingContext());
    assert.equal((await clusters.mcClient.get<KubeObject>(Endpoints, 'worker', ID)).metadata.resourceVersion, rv);
    assert.equal(events.length, 2);
  });

  it('drops a subset left empty but keeps the Endpoints object, and records real Events', async () => {
    await writeEndpoints('worker', [{ addresses: addrs('10.1.0.2') }, { addresses: addrs('10.1.0.50') }]);
    const deps = testDeps(clusters.mcClient, { workload: fixedWorkloadClusters({ [ID]: clusters.wcClient }) });
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, recordingContext());
    const ep = await clusters.mcClient.get<EndpointsObject>(Endpoints, 'worker', ID);
    assert.deepEqual(
      ep.subsets?.map((s) => s.addresses?.map((a) => a.ip)),
      [['10.1.0.2']],
    );
    await (deps.events as EventRecorder).flush();
    await eventually(
      async () =>
        (
          await clusters.mcClient.list<KubeObject & { reason?: string; message?: string }>(Events, {
            namespace: 'default',
          })
        ).items.some((e) => e.reason === 'StaleEndpointRemoved' && e.message?.includes('10.1.0.50')),
      { what: 'StaleEndpointRemoved event in the management cluster' },
    );
  });

  it('a concurrent Endpoints write wins: conflict, nothing overwritten, requeued soon', async () => {
    await writeEndpoints('worker', [{ addresses: addrs('10.1.0.2', '10.1.0.60') }]);
    const { deps, events } = depsFor(clusters, { recheckMs: 1234 });
    const mc = clusters.mcClient;
    // The drainer's endpoint handler adds an IP between the handler's read and its write.
    deps.client = new Proxy(mc, {
      get(target, prop, receiver) {
        if (prop !== 'update') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<KubeClient['update']>) => {
          const ep = await target.get<EndpointsObject>(Endpoints, 'worker', ID);
          await target.update(Endpoints, {
            ...ep,
            subsets: [{ addresses: addrs('10.1.0.2', '10.1.0.60', '10.1.0.61') }],
          });
          return target.update(...args);
        };
      },
    });
    const ctx = recordingContext();
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, ctx);
    assert.deepEqual((await ipsOf('worker')).ready, ['10.1.0.2', '10.1.0.60', '10.1.0.61']);
    assert.equal(ctx.flags.requeueAfter, 1234);
    assert.equal(events.length, 0);
    // The next run sweeps both unknown IPs.
    deps.client = mc;
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, recordingContext());
    assert.deepEqual((await ipsOf('worker')).ready, ['10.1.0.2']);
    assert.deepEqual(
      events.map((e) => e.message),
      [
        `Removed stale IP 10.1.0.60 from Endpoints ${ID}/worker`,
        `Removed stale IP 10.1.0.61 from Endpoints ${ID}/worker`,
      ],
    );
  });

  it('a missing Endpoints object is not an error and is not created', async () => {
    await clusters.mcClient.delete(Endpoints, 'master', ID);
    const { deps } = depsFor(clusters);
    await cleanupEndpointIpsHandler(deps).ensureCreated(c, recordingContext());
    await assert.rejects(clusters.mcClient.get(Endpoints, 'master', ID), /not found/i);
  });

  it('ensureDeleted does nothing', async () => {
    const { deps, events } = depsFor(clusters);
    const before = await clusters.mcClient.get<EndpointsObject>(Endpoints, 'worker', ID);
    await cleanupEndpointIpsHandler(deps).ensureDeleted(c, recordingContext('delete'));
    const afterwards = await clusters.mcClient.get<EndpointsObject>(Endpoints, 'worker', ID);
    assert.equal(afterwards.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.equal(events.length, 0);
  });
});
