// The drain protocol end to end, without the controller plumbing: the drainer's HandlerChain
// (endpoint, pod) over a node pod in the management cluster, and the node drainer over the
// DrainerConfig it asks for, draining the same-named node of a workload cluster.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Endpoints,
  HandlerChain,
  Namespaces,
  Nodes,
  Pods,
  Services,
  ignoreNotFound,
  silentLogger,
} from '../../../../src/runtime/index.ts';
import type { KubeClient, KubeObject, ReconcileContext } from '../../../../src/runtime/index.ts';
import { DrainerConfigs, finalizerFor } from '../../../../src/kvm/api/index.ts';
import type { DrainerConfig } from '../../../../src/kvm/api/index.ts';
import { endpointHandler } from '../../../../src/kvm/handlers/drainer/endpoint.ts';
import { podDrainHandler } from '../../../../src/kvm/handlers/drainer/pod.ts';
import { NodeDrainer } from '../../../../src/kvm/nodedrainer/index.ts';
import type { Pod } from '../../../../src/kvm/pods.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import {
  clientOf,
  createKvmConfig,
  fixedWorkloadClusters,
  installKvmCrds,
  sampleKvmConfig,
  testDeps,
} from '../../helpers.ts';
import { runNodePod } from './fixtures.ts';

const NS = 'abc12';
const POD = 'worker-w1-a';
const FINALIZER = finalizerFor('kvm-operator-drainer');

const rctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: silentLogger(), reconcileId: 't' });

describe('drain protocol: drainer controller and node drainer', { timeout: 180_000 }, () => {
  let mc: TestCluster;
  let wc: TestCluster;
  let mcClient: KubeClient;
  let wcClient: KubeClient;

  before(async () => {
    [mc, wc] = await Promise.all([startTestCluster({ nodes: 1 }), startTestCluster()]);
    mcClient = clientOf(mc);
    wcClient = clientOf(wc);
    await installKvmCrds(mcClient);
    await mcClient.create(Namespaces, { metadata: { name: NS } });
    await mcClient.create(Services, {
      metadata: { name: 'worker', namespace: NS },
      spec: { type: 'NodePort', ports: [{ name: 'http', port: 30010, protocol: 'TCP' }] },
    });
    await createKvmConfig(mcClient, sampleKvmConfig());
    // The workload node is named after its node pod.
    await wc.internals.nodes.add(POD);
  });
  after(async () => {
    mcClient?.close();
    wcClient?.close();
    await Promise.all([mc?.stop(), wc?.stop()]);
  });

  it('deleting a node pod drains its workload node before the VM goes', async () => {
    const deps = testDeps(mcClient, {
      workload: fixedWorkloadClusters({ [NS]: wcClient }),
      options: { recheckMs: 200 },
    });
    let cached: Pod | undefined;
    const chain = new HandlerChain<Pod>({
      name: 'drainer',
      finalizer: FINALIZER,
      type: Pods,
      client: mcClient,
      get: () => cached,
      handlers: [endpointHandler(deps), podDrainHandler(deps)],
    });
    const step = async () => {
      cached = await ignoreNotFound(mcClient.get<Pod>(Pods, POD, NS));
      return chain.reconcile({ namespace: NS, name: POD }, rctx());
    };
    const drainer = new NodeDrainer(deps);
    const endpointIps = async () => {
      const ep = await ignoreNotFound(
        mcClient.get<KubeObject & { subsets?: { addresses?: { ip: string }[] }[] }>(Endpoints, 'worker', NS),
      );
      return ep?.subsets?.flatMap((s) => s.addresses ?? []).map((a) => a.ip);
    };

    await wcClient.create(Pods, {
      metadata: { name: 'app', namespace: 'default' },
      spec: { nodeName: POD, containers: [{ name: 'c', image: 'busybox' }] },
    });
    await runNodePod(mcClient, { name: POD, namespace: NS, ip: '10.1.0.1', nodeName: 'node-1', finalizers: [] });
    await eventually(
      async () =>
        (await mcClient.get<Pod>(Pods, POD, NS)).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      {
        what: 'node pod ready',
      },
    );

    await step(); // adds the finalizer
    await step(); // lists the VM
    assert.ok(cached?.metadata.finalizers?.includes(FINALIZER));
    assert.deepEqual(await endpointIps(), ['10.1.0.1']);

    await mcClient.delete(Pods, POD, NS);
    await step();
    assert.equal(await endpointIps(), undefined, 'the worker leaves the Endpoints before the drain');
    assert.ok(await mcClient.get<DrainerConfig>(DrainerConfigs, POD, NS), 'drain requested');
    assert.ok(chain.lastResult.get(`${NS}/${POD}`)?.finalizerKeptBy);
    assert.equal((await mcClient.get<Pod>(Pods, POD, NS)).status?.phase, 'Running', 'the VM still runs');

    await eventually(
      async () => {
        await drainer.reconcile({ namespace: NS, name: POD }, rctx());
        const dc = await mcClient.get<DrainerConfig>(DrainerConfigs, POD, NS);
        return dc.status?.conditions?.some((c) => c.type === 'Drained' && c.status === 'True');
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'workload node drained' },
    );
    const node = await wcClient.get<KubeObject & { spec?: { unschedulable?: boolean } }>(Nodes, POD);
    assert.equal(node.spec?.unschedulable, true);
    assert.equal(await ignoreNotFound(wcClient.get(Pods, 'app', 'default')), undefined, 'workload evicted');

    await eventually(
      async () => {
        await step();
        return (await ignoreNotFound(mcClient.get(Pods, POD, NS))) === undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'node pod gone' },
    );
    assert.equal(await ignoreNotFound(mcClient.get(DrainerConfigs, POD, NS)), undefined, 'DrainerConfig cleaned up');
  });
});
