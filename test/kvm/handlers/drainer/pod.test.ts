// The drainer controller's pod handler: the drain state machine as a table, then every path
// against an embedded control plane with running node pods (a simulated kubelet holds them
// Running through their grace period, as the shutdown-deferrer preStop hook does).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Events, Namespaces, Pods, isNotFound } from '../../../../src/runtime/index.ts';
import type { KubeClient, KubeObject } from '../../../../src/runtime/index.ts';
import { Annotations, DrainerConfigs, KVMConfigs, Labels } from '../../../../src/kvm/api/index.ts';
import type { DrainerConfig, KVMConfig } from '../../../../src/kvm/api/index.ts';
import {
  CONFLICT_RETRY_MS,
  drainDecision,
  drainedAnnotationPatch,
  drainerConfigFor,
  podDrainHandler,
} from '../../../../src/kvm/handlers/drainer/pod.ts';
import type { DrainDecision } from '../../../../src/kvm/handlers/drainer/pod.ts';
import type { Pod } from '../../../../src/kvm/pods.ts';
import { eventually, startTestCluster } from '../../../helpers/control-plane.ts';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import {
  OPERATOR_VERSION,
  clientOf,
  createKvmConfig,
  installKvmCrds,
  recordingContext,
  sampleKvmConfig,
  testDeps,
} from '../../helpers.ts';
import { HOLD, nodePod, release, runNodePod } from './fixtures.ts';

const NS = 'abc12';
const RECHECK_MS = 1234;

function dcWith(...conds: [type: string, status: 'True' | 'False'][]): DrainerConfig {
  const dc = drainerConfigFor(nodePod({ name: 'worker-w1-a' }), sampleKvmConfig(), OPERATOR_VERSION);
  return { ...dc, status: { conditions: conds.map(([type, status]) => ({ type, status })) } };
}

describe('pod handler: the drain state machine', () => {
  const kvm = sampleKvmConfig();
  const deletingKvm: KVMConfig = { ...kvm, metadata: { ...kvm.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
  const running = nodePod({ name: 'worker-w1-a', deleting: true });
  const cases: {
    name: string;
    pod?: Pod;
    kvmConfig?: KVMConfig;
    dc?: DrainerConfig;
    want: DrainDecision['action'] | `finish:${string}`;
  }[] = [
    { name: 'pod gone: done', kvmConfig: kvm, want: 'done' },
    { name: 'no KVMConfig: skip draining', pod: running, want: 'skip' },
    { name: 'KVMConfig being deleted: skip draining', pod: running, kvmConfig: deletingKvm, want: 'skip' },
    {
      name: 'KVMConfig being deleted wins over drained',
      pod: nodePod({ name: 'w', drained: true }),
      kvmConfig: deletingKvm,
      want: 'skip',
    },
    { name: 'drained="True": drained', pod: nodePod({ name: 'w', drained: true }), kvmConfig: kvm, want: 'drained' },
    {
      name: 'drained="true" parses as Go ParseBool does',
      pod: { ...running, metadata: { ...running.metadata, annotations: { [Annotations.drained]: 'true' } } },
      kvmConfig: kvm,
      dc: dcWith(),
      want: 'drained',
    },
    { name: 'no DrainerConfig: request the drain', pod: running, kvmConfig: kvm, want: 'requestDrain' },
    { name: 'Drained: finish', pod: running, kvmConfig: kvm, dc: dcWith(['Drained', 'True']), want: 'finish:Drained' },
    { name: 'Timeout: finish', pod: running, kvmConfig: kvm, dc: dcWith(['Timeout', 'True']), want: 'finish:Timeout' },
    {
      name: 'Drained and Timeout: Drained wins',
      pod: running,
      kvmConfig: kvm,
      dc: dcWith(['Timeout', 'True'], ['Drained', 'True']),
      want: 'finish:Drained',
    },
    {
      name: 'Drained False, VM running: wait',
      pod: running,
      kvmConfig: kvm,
      dc: dcWith(['Drained', 'False']),
      want: 'wait',
    },
    { name: 'no condition, VM running: wait', pod: running, kvmConfig: kvm, dc: dcWith(), want: 'wait' },
    {
      name: 'containers terminated: finish',
      pod: nodePod({ name: 'w', containers: 'terminated' }),
      kvmConfig: kvm,
      dc: dcWith(),
      want: 'finish:VMStopped',
    },
    {
      name: 'containers waiting (none running, v3.18): finish',
      pod: nodePod({ name: 'w', containers: 'waiting' }),
      kvmConfig: kvm,
      dc: dcWith(),
      want: 'finish:VMStopped',
    },
    {
      name: 'never started (no container statuses): finish',
      pod: nodePod({ name: 'w', containers: 'none' }),
      kvmConfig: kvm,
      dc: dcWith(),
      want: 'finish:VMStopped',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const d = drainDecision({ pod: tc.pod, kvmConfig: tc.kvmConfig, drainerConfig: tc.dc });
      assert.equal(d.action === 'finish' ? `finish:${d.outcome}` : d.action, tc.want);
    });
  }
});

describe('pod handler: objects it writes', () => {
  it('the DrainerConfig: upstream spec fields, cluster and version labels, no owner', () => {
    const dc = drainerConfigFor(nodePod({ name: 'worker-w1-a' }), sampleKvmConfig(), '9.9.9');
    assert.deepEqual(dc.metadata, {
      name: 'worker-w1-a',
      namespace: NS,
      labels: { [Labels.cluster]: NS, [Labels.operatorVersion]: '9.9.9' },
    });
    assert.equal(dc.apiVersion, 'core.giantswarm.io/v1alpha1');
    assert.deepEqual(dc.spec, {
      guest: { cluster: { api: { endpoint: 'api.abc12.k8s.example.com' }, id: NS }, node: { name: 'worker-w1-a' } },
      versionBundle: { version: '0.2.0' },
    });
  });
  it('the API endpoint falls back to the KVMConfig when the pod has none', () => {
    const pod = nodePod({ name: 'w' });
    delete pod.metadata.annotations![Annotations.apiEndpoint];
    const kvm = sampleKvmConfig();
    kvm.spec.cluster.kubernetes = { api: { domain: 'api.from.config' } };
    assert.equal(drainerConfigFor(pod, kvm, '1').spec.guest.cluster.api.endpoint, 'api.from.config');
  });
  const patches = [
    {
      name: 'annotation patch: guarded by the resourceVersion, escapes the key',
      annotations: { a: 'b' },
      want: { op: 'add', path: '/metadata/annotations/endpoint.kvm.giantswarm.io~1drained', value: 'True' },
    },
    {
      name: 'annotation patch: creates the map when the pod has none',
      annotations: undefined,
      want: { op: 'add', path: '/metadata/annotations', value: { [Annotations.drained]: 'True' } },
    },
  ];
  for (const tc of patches) {
    it(tc.name, () => {
      const pod: Pod = {
        metadata: { name: 'p', resourceVersion: '42', ...(tc.annotations ? { annotations: tc.annotations } : {}) },
      };
      assert.deepEqual(drainedAnnotationPatch(pod), [
        { op: 'test', path: '/metadata/resourceVersion', value: '42' },
        tc.want,
      ]);
    });
  }
});

describe('pod handler against a control plane', { timeout: 120_000 }, () => {
  let cp: TestCluster;
  let client: KubeClient;
  const handler = (c: KubeClient = client) => podDrainHandler(testDeps(c, { options: { recheckMs: RECHECK_MS } }));
  const getPod = (name: string) => client.get<Pod>(Pods, name, NS);
  const getDc = async (name: string) => {
    try {
      return await client.get<DrainerConfig>(DrainerConfigs, name, NS);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const setDcCondition = (name: string, type: string) =>
    client.patch(DrainerConfigs, name, NS, { status: { conditions: [{ type, status: 'True' }] } }, 'merge', {
      subresource: 'status',
    });
  const eventFor = (name: string, reason: string, type = 'Normal') =>
    eventually(
      async () => {
        const list = await client.list<
          KubeObject & { reason?: string; type?: string; involvedObject?: { name?: string } }
        >(Events, { namespace: NS });
        return list.items.find((e) => e.reason === reason && e.involvedObject?.name === name && e.type === type);
      },
      { what: `${type} event ${reason} on ${name}` },
    );
  /** A running node pod, deleted: it stays Running through its grace period, held by HOLD. */
  const deletedNodePod = async (name: string, cluster = NS): Promise<Pod> => {
    await runNodePod(client, { name, namespace: NS, cluster, ip: '10.1.0.9', nodeName: 'node-1' });
    await client.delete(Pods, name, NS);
    return getPod(name);
  };

  before(async () => {
    cp = await startTestCluster({ nodes: 1 });
    client = clientOf(cp);
    await installKvmCrds(client);
    await client.create(Namespaces, { metadata: { name: NS } });
    await createKvmConfig(client, sampleKvmConfig());
  });
  after(async () => {
    client?.close();
    await cp?.stop();
  });

  it('ensureCreated does nothing', async () => {
    const ctx = recordingContext('update');
    await handler().ensureCreated(nodePod({ name: 'x' }), ctx);
    assert.deepEqual(ctx.flags, {});
  });

  it('drains: requests a drain, waits, finishes on Drained, then lets the finalizer go', async () => {
    const h = handler();
    const pod = await deletedNodePod('worker-w1-a');

    const first = recordingContext('delete');
    await h.ensureDeleted(pod, first);
    assert.ok(first.flags.finalizerKept);
    const dc = await getDc('worker-w1-a');
    assert.deepEqual(dc?.spec, drainerConfigFor(pod, sampleKvmConfig(), OPERATOR_VERSION).spec);
    assert.equal(dc?.metadata.labels?.[Labels.operatorVersion], OPERATOR_VERSION);
    assert.equal(dc?.metadata.ownerReferences, undefined);
    await eventFor('worker-w1-a', 'DrainingNode');

    const waiting = recordingContext('delete');
    await h.ensureDeleted(pod, waiting);
    assert.ok(waiting.flags.finalizerKept);
    assert.equal(waiting.flags.requeueAfter, RECHECK_MS);
    assert.equal((await getPod('worker-w1-a')).metadata.annotations?.[Annotations.drained], 'False');

    await setDcCondition('worker-w1-a', 'Drained');
    const finishing = recordingContext('delete');
    await h.ensureDeleted(pod, finishing);
    assert.ok(finishing.flags.finalizerKept, 'kept until the next event sees drained=True');
    assert.equal(await getDc('worker-w1-a'), undefined, 'DrainerConfig deleted');
    const fresh = await getPod('worker-w1-a');
    assert.equal(fresh.metadata.annotations?.[Annotations.drained], 'True');
    assert.equal(fresh.metadata.deletionGracePeriodSeconds, 0, 'deleted with grace 0');
    await eventFor('worker-w1-a', 'NodeDrained');
    await eventually(async () => (await getPod('worker-w1-a')).status?.phase === 'Succeeded', {
      what: 'the VM stopped at once',
    });

    const released = recordingContext('delete');
    await h.ensureDeleted(fresh, released);
    assert.deepEqual(released.flags, {});
    await release(client, 'worker-w1-a', NS);
  });

  it('Timeout: finishes with a Warning event', async () => {
    const h = handler();
    const pod = await deletedNodePod('worker-w2-a');
    await h.ensureDeleted(pod, recordingContext('delete'));
    await setDcCondition('worker-w2-a', 'Timeout');
    const ctx = recordingContext('delete');
    await h.ensureDeleted(pod, ctx);
    assert.ok(ctx.flags.finalizerKept);
    assert.equal((await getPod('worker-w2-a')).metadata.annotations?.[Annotations.drained], 'True');
    assert.equal(await getDc('worker-w2-a'), undefined);
    await eventFor('worker-w2-a', 'DrainTimeout', 'Warning');
    await release(client, 'worker-w2-a', NS);
  });

  it('a VM that never ran (no container running) finishes without waiting for the drainer', async () => {
    const h = handler();
    const { status: _s, ...obj } = nodePod({ name: 'worker-w3-a', finalizers: [HOLD] });
    // No node matches: it stays Pending, no container ever runs.
    await client.create(Pods, { ...obj, spec: { ...obj.spec, nodeSelector: { role: 'nowhere' } } });
    await client.delete(Pods, 'worker-w3-a', NS);
    const pod = await getPod('worker-w3-a');
    await h.ensureDeleted(pod, recordingContext('delete'));
    assert.ok(await getDc('worker-w3-a'), 'the drain is requested first, as upstream');
    const ctx = recordingContext('delete');
    await h.ensureDeleted(pod, ctx);
    assert.ok(ctx.flags.finalizerKept);
    assert.equal(ctx.flags.requeueAfter, undefined);
    assert.equal((await getPod('worker-w3-a')).metadata.annotations?.[Annotations.drained], 'True');
    assert.equal(await getDc('worker-w3-a'), undefined);
    await release(client, 'worker-w3-a', NS);
  });

  it('conflict on the drained annotation: keeps the finalizer, retries soon, does not throw', async () => {
    const pod = await deletedNodePod('worker-w4-a');
    await handler().ensureDeleted(pod, recordingContext('delete'));
    await setDcCondition('worker-w4-a', 'Drained');
    // Another writer changes the pod between our read and our patch.
    const racing = Object.create(client) as KubeClient;
    racing.patch = async (type, name, ns, patch, patchType, opts) => {
      if (type === Pods) await client.patch(Pods, name, ns, { metadata: { labels: { touched: 'yes' } } }, 'merge');
      return client.patch(type, name, ns, patch, patchType, opts);
    };
    const ctx = recordingContext('delete');
    await handler(racing).ensureDeleted(pod, ctx);
    assert.ok(ctx.flags.finalizerKept);
    assert.equal(ctx.flags.requeueAfter, CONFLICT_RETRY_MS);
    const after = await getPod('worker-w4-a');
    assert.equal(after.metadata.annotations?.[Annotations.drained], 'False');
    assert.equal(after.metadata.deletionGracePeriodSeconds, 300, 'not force-deleted');
    assert.ok(await getDc('worker-w4-a'), 'the DrainerConfig survives, so no new drain starts');

    const retry = recordingContext('delete');
    await handler().ensureDeleted(pod, retry);
    assert.equal((await getPod('worker-w4-a')).metadata.annotations?.[Annotations.drained], 'True');
    assert.equal(await getDc('worker-w4-a'), undefined);
    await release(client, 'worker-w4-a', NS);
  });

  it('cluster being deleted: no drain, the finalizer goes', async () => {
    const gone = sampleKvmConfig({ id: 'gone1' });
    gone.metadata.finalizers = [HOLD];
    await client.create(KVMConfigs, gone);
    await client.delete(KVMConfigs, 'gone1', 'default');
    const pod = await deletedNodePod('worker-w5-a', 'gone1');
    const ctx = recordingContext('delete');
    await handler().ensureDeleted(pod, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal(await getDc('worker-w5-a'), undefined);
    await release(client, 'worker-w5-a', NS);
    await client.patch(KVMConfigs, 'gone1', 'default', { metadata: { finalizers: [] } }, 'merge');
  });

  it('cluster without KVMConfig: no drain, the finalizer goes', async () => {
    const pod = await deletedNodePod('worker-w6-a', 'nosuch');
    const ctx = recordingContext('delete');
    await handler().ensureDeleted(pod, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal(await getDc('worker-w6-a'), undefined);
    await release(client, 'worker-w6-a', NS);
  });

  it('pod already gone: done', async () => {
    const ctx = recordingContext('delete');
    await handler().ensureDeleted(nodePod({ name: 'never-there', deleting: true }), ctx);
    assert.deepEqual(ctx.flags, {});
  });

  it('already drained: cleans up a leftover DrainerConfig and releases the finalizer', async () => {
    const pod = await deletedNodePod('worker-w7-a');
    await client.create(DrainerConfigs, drainerConfigFor(pod, sampleKvmConfig(), OPERATOR_VERSION));
    await client.patch(
      Pods,
      'worker-w7-a',
      NS,
      { metadata: { annotations: { [Annotations.drained]: 'True' } } },
      'merge',
    );
    const ctx = recordingContext('delete');
    await handler().ensureDeleted(pod, ctx);
    assert.deepEqual(ctx.flags, {});
    assert.equal(await getDc('worker-w7-a'), undefined);
    await release(client, 'worker-w7-a', NS);
  });
});
