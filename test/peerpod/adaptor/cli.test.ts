// The adaptor as users start it: `peerpods run adaptor --node NAME` in its own process (the test
// claims the runtime class from the simulated kubelets, as the code starting both would), and
// `startEmbeddedAdaptors`, which runs one adaptor per simulated node in-process (for tests; `peerpods start`
// runs the adaptors as pods of their DaemonSet).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { KubeClient, Pods, silentLogger } from '../../../src/runtime/index.ts';
import { SimulatedProvider } from '../../../src/peerpod/providers/index.ts';
import { POD_UID_TAG, startEmbeddedAdaptors } from '../../../src/peerpod/adaptor/index.ts';
import { createPod, eventually, getPod, isReady, peerPodsOf, startEnv } from './helpers.ts';
import type { Env } from './helpers.ts';

const BIN = new URL('../../../bin/peerpods.js', import.meta.url).pathname;

describe('peer-pod adaptor entry points', { timeout: 120_000 }, () => {
  let env: Env;

  before(async () => {
    env = await startEnv();
  });

  after(async () => {
    await env?.stop();
  });

  it('peerpods run adaptor runs the node’s pods and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        'adaptor',
        '--node',
        'node-1',
        '--provider',
        'simulated',
        '--provider-config',
        'SIMULATED_LATENCY_MS=5',
        '--kubeconfig',
        env.cluster.kubeconfigPath,
        '--namespace',
        'peerpods-system',
        '--health-probe-bind-address',
        '0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const pod = await createPod(env, { nodeName: 'node-1' });
      // A CLI process starting under load (tsx compiles on first run) can take a while.
      await eventually(async () => isReady(await getPod(env, pod)), {
        timeoutMs: 90_000,
        what: `the pod to run\n${output}`,
      });
      const [pp] = await peerPodsOf(env, pod);
      assert.equal(pp.spec?.cloudProvider, 'simulated');
      await env.client.delete(Pods, pod.metadata.name as string, 'default');
      await eventually(async () => !(await getPod(env, pod)), { what: 'the pod to be gone' });
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('startEmbeddedAdaptors runs one adaptor per simulated node on one manager', async () => {
    const cloud = new SimulatedProvider();
    const client = KubeClient.fromKubeconfigString(env.cluster.kubeconfig, {
      metricsRegistry: null,
      logger: silentLogger(),
    });
    const embedded = await startEmbeddedAdaptors(env.cluster, { client, provider: cloud, logger: silentLogger() });
    try {
      assert.deepEqual(embedded.adaptors.map((a) => a.options.nodeName).sort(), ['node-1', 'node-2']);
      const pods = [await createPod(env, { nodeName: 'node-1' }), await createPod(env, { nodeName: 'node-2' })];
      await eventually(async () => (await Promise.all(pods.map((p) => getPod(env, p)))).every(isReady), {
        timeoutMs: 20_000,
        what: 'a pod on each node to run',
      });
      // Only this test's VMs: a pod another test left behind would also get one from these adaptors.
      const uids = new Set(pods.map((p) => p.metadata.uid));
      assert.equal(cloud.snapshot().filter((vm) => uids.has(vm.tags[POD_UID_TAG])).length, 2);
      for (const p of pods) await env.client.delete(Pods, p.metadata.name as string, 'default');
      await eventually(async () => (await Promise.all(pods.map((p) => getPod(env, p)))).every((p) => !p), {
        what: 'the pods to be gone',
      });
      assert.equal(cloud.snapshot().filter((vm) => uids.has(vm.tags[POD_UID_TAG])).length, 0);
    } finally {
      await embedded.stop();
      client.close();
    }
  });
});
