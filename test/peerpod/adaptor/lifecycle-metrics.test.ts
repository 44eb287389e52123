// The pod lifecycle histograms as a Prometheus scrape sees them (the adaptor's and the PeerPod
// controller's /metrics endpoints), measured from timestamps the API and the provider keep, observed
// once per pod even across an adaptor restart; and `kubectl get peerpods -o wide` with the pinned
// kubectl versions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { KubeClient, Manager, Pods, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { VmAnnotations } from '../../../src/peerpod/adaptor/index.ts';
import type { AdaptorHooks } from '../../../src/peerpod/adaptor/index.ts';
import { setupPeerPodController } from '../../../src/peerpod/controllers/index.ts';
import { SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import { installGeneratedRbac, kubeconfigAs } from '../../helpers/generated-rbac.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { histogram, scrape } from '../../helpers/prometheus.ts';
import type { HistogramView, Sample } from '../../helpers/prometheus.ts';
import { SETTINGS_NS, createPod, eventually, getPod, isReady, peerPodsOf, startAdaptors, startEnv } from './helpers.ts';
import type { Adaptors, Env } from './helpers.ts';

const NODE = 'node-1';
const START_LABELS = { provider: 'simulated', start: 'cold' };
const TO_RUNNING = 'peerpods_adaptor_pod_created_to_running_seconds';
const TO_VM = 'peerpods_adaptor_pod_created_to_vm_created_seconds';
const VM_TO_RUNNING = 'peerpods_adaptor_vm_created_to_pod_running_seconds';
const DELETE = 'peerpods_adaptor_pod_deletion_to_vm_deleted_seconds';
const RELEASED = 'peerpod_deletion_to_instance_deleted_seconds';
const SIZE = { [VmAnnotations.vcpus]: '2', [VmAnnotations.memory]: '2048' };

describe('pod lifecycle metrics and PeerPod printer columns (simulated cloud)', { timeout: 180_000 }, () => {
  let env: Env;
  let cloud: SimulatedProvider;
  let adaptorUser: string;
  let adaptors: Adaptors | undefined;
  let controller: { manager: Manager; stop(): Promise<void> } | undefined;

  before(async () => {
    env = await startEnv();
    cloud = new SimulatedProvider({ latencyMs: 20 });
    adaptorUser = await installGeneratedRbac(env.client, 'peerpod-adaptor');
    adaptors = await startNodeAdaptor();
    const controllerUser = await installGeneratedRbac(env.client, 'peerpod-controller');
    controller = await startController(controllerUser);
  });

  after(async () => {
    await adaptors?.stop();
    await controller?.stop();
    await env?.stop();
  });

  function startNodeAdaptor(hooks?: AdaptorHooks): Promise<Adaptors> {
    return startAdaptors(
      env,
      {
        provider: cloud,
        ...(hooks ? { hooks } : {}),
        manager: { server: { host: '127.0.0.1', port: 0 }, gracefulShutdownTimeoutMs: 200 },
      },
      { nodes: [NODE], asUser: adaptorUser },
    );
  }

  async function startController(user: string): Promise<{ manager: Manager; stop(): Promise<void> }> {
    const registry = new Registry();
    const client = KubeClient.fromKubeconfigString(kubeconfigAs(env.cluster.kubeconfig, user), {
      metricsRegistry: registry,
      logger: silentLogger(),
    });
    const manager = new Manager({
      client,
      logger: silentLogger(),
      metricsRegistry: registry,
      server: { host: '127.0.0.1', port: 0 },
      handleSignals: false,
    });
    setupPeerPodController(manager, { namespace: SETTINGS_NS, providerFactory: async () => cloud });
    const running = manager.start();
    await manager.elected();
    return {
      manager,
      async stop() {
        await manager.stop();
        await running;
        client.close();
      },
    };
  }

  async function metricsOf(manager: Manager): Promise<Sample[]> {
    const { port } = await manager.serverAddress();
    return scrape(`http://127.0.0.1:${port}/metrics`);
  }

  function adaptorManager(): Manager {
    return (adaptors?.byNode.get(NODE) as { manager: Manager }).manager;
  }

  async function runPod(name: string): Promise<KubeObject> {
    const pod = await createPod(env, { name, nodeName: NODE, annotations: SIZE });
    await eventually(async () => isReady(await getPod(env, pod)), { timeoutMs: 20_000, what: `${name} to run` });
    return pod;
  }

  function observed(samples: Sample[], name: string, labels: Record<string, string>): HistogramView {
    const h = histogram(samples, name, labels);
    assert.ok(h, `${name}${JSON.stringify(labels)} is exposed`);
    return h;
  }

  it('observes pod created → VM created → Running once per pod, by provider and start, and the delete', async () => {
    // The VM comes up 1.5 s after the create call: the spans must show it.
    cloud.setCreateFault({ delayMs: 1500, times: 1 });
    const pod = await runPod('timed');
    const samples = await metricsOf(adaptorManager());

    const total = observed(samples, TO_RUNNING, START_LABELS);
    assert.equal(total.count, 1);
    // Whole-second API timestamps: at least the 1.5 s of the create, rounded down; far below the deadline.
    assert.ok(total.sum >= 1 && total.sum < 20, `pod created → Running took ${total.sum} s`);
    const toVm = observed(samples, TO_VM, START_LABELS);
    const vmToRunning = observed(samples, VM_TO_RUNNING, START_LABELS);
    assert.equal(toVm.count, 1);
    assert.equal(vmToRunning.count, 1);
    assert.ok(toVm.sum >= 1.5, `pod created → VM created took ${toVm.sum} s, the create alone 1.5 s`);
    assert.ok(
      Math.abs(toVm.sum + vmToRunning.sum - total.sum) <= 1,
      'the two spans add up to the whole (±1 s rounding)',
    );
    // Buckets for VM start: half a second to a quarter of an hour, cumulative.
    assert.deepEqual(
      total.buckets.map(([le]) => le),
      [0.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300, 600, 900, Infinity],
    );
    assert.equal(total.buckets.at(-1)?.[1], 1);
    assert.equal(total.buckets[0][1], 0, 'not in the 0.5 s bucket');

    // The default grace period (30 s) is not part of the delete: it is measured from the request.
    await env.client.delete(Pods, 'timed', 'default');
    await eventually(async () => !(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to be gone' });
    const del = observed(await metricsOf(adaptorManager()), DELETE, { provider: 'simulated' });
    assert.equal(del.count, 1);
    assert.ok(del.sum > 0 && del.sum < 10, `pod deletion → VM deleted took ${del.sum} s`);
    assert.equal(del.buckets.at(-2)?.[0], 600);
  });

  it('kubectl get peerpods -o wide shows node, IP, size, age and phase (kubectl 1.27 and 1.33)', async () => {
    const pod = await runPod('wide');
    const podIp = (await getPod(env, pod))?.status?.podIP as string;
    const [pp] = await peerPodsOf(env, pod);
    // The phase is the PeerPod controller's.
    await eventually(async () => (await peerPodsOf(env, pod))[0]?.status?.phase === 'Active', {
      what: 'the PeerPod to be Active',
    });
    for (const version of ['1.27', '1.33']) {
      const wide = await kubectl(env.cluster.kubeconfigPath, ['get', 'peerpods', '-n', 'default', '-o', 'wide'], {
        version,
      });
      assert.equal(wide.code, 0, wide.stderr);
      const [header, ...rows] = wide.stdout.trim().split('\n');
      assert.deepEqual(header.trim().split(/\s+/), [
        'NAME',
        'PROVIDER',
        'INSTANCE',
        'POD',
        'PHASE',
        'AGE',
        'NODE',
        'IP',
        'SIZE',
      ]);
      const row = rows.map((r) => r.trim().split(/\s+/)).find((cells) => cells[0] === pp.metadata.name);
      assert.ok(row, `${version}: a row for ${pp.metadata.name}: ${wide.stdout}`);
      assert.deepEqual(
        [row[1], row[2], row[3], row[4], row[6], row[7], row[8]],
        ['simulated', pp.spec?.instanceID, 'wide', 'Active', NODE, podIp, '2/2048Mi'],
        version,
      );
      assert.match(row[5], /^\d+s$/, `${version}: age`);

      const narrow = await kubectl(env.cluster.kubeconfigPath, ['get', 'peerpods', '-n', 'default'], { version });
      assert.equal(narrow.code, 0, narrow.stderr);
      assert.deepEqual(narrow.stdout.split('\n')[0].trim().split(/\s+/), [
        'NAME',
        'PROVIDER',
        'INSTANCE',
        'POD',
        'PHASE',
        'AGE',
      ]);
    }
    await env.client.delete(Pods, 'wide', 'default');
    await eventually(async () => !(await getPod(env, pod)), { timeoutMs: 20_000, what: 'the pod to be gone' });
  });

  it('a restarted adaptor observes the pod it resumes once, from its creation, and none it finds running', async () => {
    const running = await runPod('before-restart');
    await adaptors?.stop();

    // The next adaptor stands still after creating the VM, as a killed process would.
    let reached!: () => void;
    const atCrashPoint = new Promise<void>((r) => (reached = r));
    adaptors = await startNodeAdaptor({
      async afterCreateInstance(_pod, _vm, signal) {
        reached();
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
        throw new Error('crashed');
      },
    });
    cloud.setCreateFault({ delayMs: 2500, times: 1 });
    const resumed = await createPod(env, { name: 'resumed', nodeName: NODE, annotations: SIZE });
    await atCrashPoint;
    await adaptors.stop();
    assert.equal((await getPod(env, resumed))?.status?.phase, 'Pending');

    adaptors = await startNodeAdaptor();
    await eventually(async () => isReady(await getPod(env, resumed)), {
      timeoutMs: 20_000,
      what: 'the restarted adaptor to run the pod',
    });
    // A pod created after the restart shows the adaptor observes; the one Running before it is not
    // observed again, the resumed one is observed once.
    await runPod('after-restart');
    const samples = await metricsOf(adaptorManager());
    const total = observed(samples, TO_RUNNING, START_LABELS);
    assert.equal(total.count, 2, 'resumed and after-restart; before-restart was Running already');
    assert.equal(observed(samples, TO_VM, START_LABELS).count, 2);
    assert.equal(observed(samples, VM_TO_RUNNING, START_LABELS).count, 2);
    // Measured from the pod's creation, so the 2.5 s create before the crash counts (a stopwatch
    // started by the new process would see only its own few milliseconds).
    assert.ok(total.sum >= 2.5 - 1, `pod created → Running of the resumed pod: ${total.sum} s in all`);
    assert.ok(await getPod(env, running), 'the pod Running before the restart still exists');
  });

  it('the PeerPod controller observes the deletes it does for a node whose adaptor is down', async () => {
    const pod = await runPod('orphaned');
    await adaptors?.stop();
    adaptors = undefined;
    // Force-deleted: the pod is gone at once, the garbage collector deletes its PeerPod, and the
    // PeerPod controller deletes the VM the PeerPod names.
    await env.client.delete(Pods, 'orphaned', 'default', { gracePeriodSeconds: 0 });
    await eventually(async () => (await peerPodsOf(env, pod)).length === 0, {
      timeoutMs: 30_000,
      what: 'the PeerPod to be finalized by the controller',
    });
    const released = observed(await metricsOf(controller?.manager as Manager), RELEASED, { provider: 'simulated' });
    assert.equal(released.count, 1);
    assert.ok(released.sum >= 0 && released.sum < 20, `PeerPod deletion → instance deleted took ${released.sum} s`);
  });
});
