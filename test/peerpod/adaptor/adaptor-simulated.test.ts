// The adaptor with the in-process simulated cloud: many pods at once, a provider that fails (Warning
// event on the pod, then a retry that succeeds), the PeerPod controller's orphan sweep next to it,
// and a provider that is not configured yet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ConfigMaps, KubeClient, Manager, Namespaces, Pods, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { POD_UID_TAG } from '../../../src/peerpod/adaptor/index.ts';
import { CLUSTER_UID_TAG, SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import { setupPeerPodController } from '../../../src/peerpod/controllers/index.ts';
import {
  SETTINGS_NS,
  createPod,
  eventsFor,
  eventually,
  getPod,
  isReady,
  metricValue,
  peerPodsOf,
  startAdaptors,
  startEnv,
} from './helpers.ts';
import type { Adaptors, Env } from './helpers.ts';
import { installGeneratedRbac } from '../../helpers/generated-rbac.ts';

describe('peer-pod adaptor (simulated cloud)', { timeout: 120_000 }, () => {
  let env: Env;
  let user: string;
  let cloud: SimulatedProvider;
  let adaptors: Adaptors | undefined;

  before(async () => {
    env = await startEnv();
    cloud = new SimulatedProvider({ latencyMs: 20 });
    // As deployed: the adaptor's ServiceAccount with only its generated RBAC.
    user = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    adaptors = await startAdaptors(env, { provider: cloud }, { asUser: user });
  });

  after(async () => {
    await adaptors?.stop();
    await env?.stop();
  });

  it('runs and deletes 50 pods on two nodes, one VM each', async () => {
    const pods: KubeObject[] = [];
    for (let i = 0; i < 50; i++) pods.push(await createPod(env, { name: `many-${i}` }));
    await eventually(
      async () => {
        const cur = await Promise.all(pods.map((p) => getPod(env, p)));
        return cur.every(isReady);
      },
      { timeoutMs: 30_000, intervalMs: 200, what: '50 pods to run' },
    );
    const vms = cloud.snapshot();
    assert.equal(vms.length, 50);
    const ips = new Set(vms.map((v) => v.ips[0]));
    for (const p of pods) {
      const cur = await getPod(env, p);
      assert.ok(ips.has(cur?.status?.podIP as string), `${p.metadata.name} reports its VM's IP`);
      assert.equal(vms.filter((v) => v.tags[POD_UID_TAG] === p.metadata.uid).length, 1);
    }
    const nodes = new Set((await Promise.all(pods.map((p) => getPod(env, p)))).map((p) => p?.spec.nodeName));
    assert.equal(nodes.size, 2, 'both nodes ran pods');
    let total = 0;
    for (const [node, registry] of adaptors?.registries ?? []) {
      total += await metricValue(registry, 'peerpods_adaptor_vms_running', { node });
    }
    assert.equal(total, 50);

    for (const p of pods) await env.client.delete(Pods, p.metadata.name as string, 'default');
    await eventually(async () => (await env.client.list(Pods, { namespace: 'default' })).items.length === 0, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: '50 pods to be gone',
    });
    assert.equal(cloud.snapshot().length, 0, 'every VM deleted');
    await eventually(
      async () => (await Promise.all(pods.map((p) => peerPodsOf(env, p)))).every((l) => l.length === 0),
      {
        what: 'the PeerPods to be collected',
      },
    );
  });

  it('reports a failing create as a Warning on the pod and retries', async () => {
    cloud.resetStats();
    cloud.failNext('create', 2);
    const pod = await createPod(env);
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to run' });
    assert.equal(cloud.stats.failures.create, 2);
    const warning = await eventually(async () =>
      (await eventsFor(env, pod)).find((e) => e.reason === 'VMCreateFailed'),
    );
    assert.equal(warning.type, 'Warning');
    assert.match(warning.message ?? '', /injected failure/);
    assert.equal(cloud.snapshot().filter((v) => v.tags[POD_UID_TAG] === pod.metadata.uid).length, 1);

    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)), { what: 'the pod to be gone' });
    assert.equal(cloud.snapshot().length, 0);
  });

  it('tags VMs so the PeerPod controller sweep keeps recorded ones and finds unrecorded ones', async () => {
    const registry = new Registry();
    const client = KubeClient.fromKubeconfigString(env.cluster.kubeconfig, {
      metricsRegistry: registry,
      logger: silentLogger(),
    });
    const manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: false,
      handleSignals: false,
    });
    const ctl = setupPeerPodController(manager, {
      namespace: SETTINGS_NS,
      providerFactory: async () => cloud,
      sweepProviders: ['simulated'],
      sweepIntervalMs: 0,
      orphanGraceMs: 0,
    });
    const running = manager.start();
    try {
      const pods: KubeObject[] = [];
      for (let i = 0; i < 5; i++) pods.push(await createPod(env, { name: `swept-${i}` }));
      await eventually(async () => (await Promise.all(pods.map((p) => getPod(env, p)))).every(isReady), {
        timeoutMs: 20_000,
        what: '5 pods to run',
      });
      const clusterUid = (await env.client.get(Namespaces, 'kube-system')).metadata.uid as string;
      const stray = await cloud.createInstance({
        podName: 'stray',
        podNamespace: 'default',
        sandboxId: 'deadbeef',
        vcpus: 0,
        memoryMiB: 0,
        tags: { [CLUSTER_UID_TAG]: clusterUid },
      });
      const [result] = await ctl.sweeper.sweepOnce();
      assert.equal(result.listed, 6, 'every VM the adaptor made carries the cluster tag');
      assert.deepEqual(result.deleted, [stray.id], 'only the VM no PeerPod names is an orphan');
      assert.equal(cloud.snapshot().length, 5);
      for (const p of pods) await env.client.delete(Pods, p.metadata.name as string, 'default');
      await eventually(async () => (await Promise.all(pods.map((p) => getPod(env, p)))).every((p) => !p), {
        what: 'the pods to be gone',
      });
      assert.equal(cloud.snapshot().length, 0);
    } finally {
      await manager.stop();
      await running.catch(() => undefined);
      client.close();
    }
  });

  it('waits for a provider to be configured, then runs the pod', async () => {
    await adaptors?.stop();
    // No CLOUD_PROVIDER yet: the settings come from the cluster.
    adaptors = await startAdaptors(env, {}, { asUser: user });
    const pod = await createPod(env);
    const warning = await eventually(async () => (await eventsFor(env, pod)).find((e) => e.reason === 'NoProvider'), {
      timeoutMs: 20_000,
      what: 'a NoProvider warning',
    });
    assert.equal(warning.type, 'Warning');
    assert.equal((await peerPodsOf(env, pod)).length, 0, 'nothing is recorded without a provider');

    await env.client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: SETTINGS_NS },
      data: { CLOUD_PROVIDER: 'simulated' },
    });
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to run' });
    const [pp] = await peerPodsOf(env, pod);
    assert.equal(pp.spec?.cloudProvider, 'simulated');
    assert.match(pp.spec?.instanceID ?? '', /^sim-\d+$/);
    await env.client.delete(Pods, pod.metadata.name as string, 'default');
    await eventually(async () => !(await getPod(env, pod)), { what: 'the pod to be gone' });
  });
});
