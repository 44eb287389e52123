// Scheduler resource fit: cpu, memory, pod count, ephemeral storage and extended resources
// against allocatable minus what bound pods request; init containers and overhead; retry when
// capacity appears; the aggregated FailedScheduling Event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { podRequests } from '../../../../src/kube/controllers/scheduler/resources.ts';
import { boundNode, createPod, eventsFor, labelNode, nodeOf, unschedulableMessage, until } from './helpers.ts';
import { internalContext } from '../../../../src/kube/registry/context.ts';

const container = (requests: Record<string, string>, limits?: Record<string, string>) => ({
  name: 'c',
  image: 'nginx',
  resources: { requests, ...(limits ? { limits } : {}) },
});

describe('resource fit', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({
      nodes: 2,
      simulatedNodes: { capacity: { cpu: '2', memory: '4Gi', pods: '3', 'ephemeral-storage': '10Gi' } },
    });
  });
  after(() => cp.stop());

  test('cpu: two pods fill both nodes, the third is Insufficient cpu', async () => {
    await createPod(cp, 'cpu-1', { containers: [container({ cpu: '1500m' })] });
    await createPod(cp, 'cpu-2', { containers: [container({ cpu: '1500m' })] });
    const nodes = [await boundNode(cp, 'cpu-1'), await boundNode(cp, 'cpu-2')].sort();
    assert.deepEqual(nodes, ['node-1', 'node-2']);
    await createPod(cp, 'cpu-3', { containers: [container({ cpu: '1' })] });
    assert.equal(await unschedulableMessage(cp, 'cpu-3'), '0/2 nodes are available: 2 Insufficient cpu.');
  });

  test('memory and ephemeral-storage, several reasons per node', async () => {
    await createPod(cp, 'mem', { containers: [container({ memory: '5Gi', 'ephemeral-storage': '20Gi' })] });
    assert.equal(
      await unschedulableMessage(cp, 'mem'),
      '0/2 nodes are available: 2 Insufficient ephemeral-storage, 2 Insufficient memory.',
    );
  });

  test('pod count: Too many pods', async () => {
    // cpu-1/cpu-2 hold one slot per node; fill the remaining four slots with request-less pods.
    for (let i = 0; i < 4; i++) await createPod(cp, `fill-${i}`);
    for (let i = 0; i < 4; i++) await boundNode(cp, `fill-${i}`);
    await createPod(cp, 'one-too-many');
    assert.equal(await unschedulableMessage(cp, 'one-too-many'), '0/2 nodes are available: 2 Too many pods.');
  });
});

describe('extended resources and retry', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 2 });
  });
  after(() => cp.stop());

  test('kata.peerpods.io/vm: unschedulable until a node advertises it, limits count as requests', async () => {
    const vm = { containers: [container({}, { 'kata.peerpods.io/vm': '1' })] };
    await createPod(cp, 'vm-1', vm);
    const msg = '0/2 nodes are available: 2 Insufficient kata.peerpods.io/vm.';
    assert.equal(await unschedulableMessage(cp, 'vm-1'), msg);
    const ev = await until(() => eventsFor(cp, 'vm-1').find((e) => e.reason === 'FailedScheduling'));
    assert.equal(ev.message, msg);
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.count, 1);
    assert.equal(ev.reportingComponent, 'default-scheduler');

    // A node change a filter reads wakes the pod; after its backoff the same failure aggregates.
    await labelNode(cp, 'node-2', { touched: 'yes' });
    await eventually(() => eventsFor(cp, 'vm-1').find((e) => e.reason === 'FailedScheduling' && e.count === 2), {
      what: 'aggregated FailedScheduling count 2',
    });
    assert.equal(eventsFor(cp, 'vm-1').filter((e) => e.reason === 'FailedScheduling').length, 1);

    // Capacity appears through a JSON patch on node status (as the peer-pod operator does).
    const patch = JSON.stringify([
      { op: 'add', path: '/status/capacity/kata.peerpods.io~1vm', value: '1' },
      { op: 'add', path: '/status/allocatable/kata.peerpods.io~1vm', value: '1' },
    ]);
    const r = await kubectl(cp.kubeconfigPath, [
      'patch',
      'node',
      'node-1',
      '--subresource=status',
      '--type=json',
      '-p',
      patch,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await boundNode(cp, 'vm-1'), 'node-1');

    await createPod(cp, 'vm-2', vm);
    assert.equal(await unschedulableMessage(cp, 'vm-2'), msg);
    assert.equal(nodeOf(cp, 'vm-2'), undefined);
    // Freeing the VM slot retries the waiting pod.
    await cp.internals.store.delete(
      cp.internals.catalog.lookup('', 'v1', 'pods')!,
      'default',
      'vm-1',
      { gracePeriodSeconds: 0 },
      internalContext('t'),
    );
    assert.equal(await boundNode(cp, 'vm-2'), 'node-1');
  });

  test('requests: max(sum of containers, init peak) plus overhead', () => {
    const r = podRequests({
      containers: [container({ cpu: '1', memory: '1Gi' }), container({ cpu: '500m' })],
      initContainers: [container({ cpu: '2' }), { ...container({ cpu: '100m' }), restartPolicy: 'Always' }],
      overhead: { cpu: '250m', 'kata.peerpods.io/vm': '1' },
    });
    // Sidecar 100m runs alongside: containers 1.5 + 0.1 = 1.6; init peak 2 (before the sidecar);
    // max is 2, plus overhead 0.25.
    assert.equal(r.res.get('cpu'), 2250);
    assert.equal(r.res.get('memory'), 1024 ** 3);
    assert.equal(r.res.get('kata.peerpods.io/vm'), 1);
  });
});
