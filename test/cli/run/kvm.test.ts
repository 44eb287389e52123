// `peerpods install` and `peerpods run kvm-operator` through the real CLI against the embedded
// control plane, with kubectl reading the result: the CRDs install, the operator starts and
// answers its probes, builds a cluster's objects, reports a workload cluster it cannot reach on the
// KVMConfig, and stops cleanly on SIGTERM. Bad flags exit non-zero with a message.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Deployments, KubeClient, Namespaces, silentLogger } from '../../../src/runtime/index.ts';
import { KVMConfigs } from '../../../src/kvm/index.ts';
import type { KVMConfig } from '../../../src/kvm/index.ts';
import { startTestCluster, eventually } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { createKvmConfig, sampleKvmConfig } from '../../helpers/kvm.ts';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const cli = (args: string[]) => run(process.execPath, [path.join(root, 'bin/peerpods.js'), ...args], { cwd: root });

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

describe('peerpods run kvm-operator', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let client: KubeClient;

  before(async () => {
    cluster = await startTestCluster({ nodes: 2 });
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  });
  after(async () => {
    client.close();
    await cluster.stop();
  });

  it('rejects bad flags with a message and a non-zero exit', async () => {
    await assert.rejects(
      cli(['run', 'kvm-operator', '--unhealthy-node-after', 'soon']),
      (e: { stderr: string; code: number }) => {
        assert.notEqual(e.code, 0);
        assert.match(e.stderr, /--unhealthy-node-after.*must be a duration/);
        return true;
      },
    );
  });

  it('installs the CRDs, builds a cluster, reports the unreachable workload cluster, stops on SIGTERM', async () => {
    await cli(['install', '--kubeconfig', cluster.kubeconfigPath]);
    const crds = await kubectl(cluster.kubeconfigPath, ['get', 'crd', '-o', 'name']);
    for (const name of [
      'kvmconfigs.provider.giantswarm.io',
      'releases.release.giantswarm.io',
      'drainerconfigs.core.giantswarm.io',
    ])
      assert.match(crds.stdout, new RegExp(name.replace(/\./g, '\\.')));

    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'bin/peerpods.js'),
        'run',
        'kvm-operator',
        '--kubeconfig',
        cluster.kubeconfigPath,
        '--leader-elect',
        '--namespace',
        'default',
        '--health-probe-bind-address',
        `127.0.0.1:${port}`,
      ],
      { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, {
        timeoutMs: 30_000,
        what: `readyz (output: ${output})`,
      });
      await createKvmConfig(client, sampleKvmConfig({ id: 'cli01', masters: 1, workers: 1 }));
      await eventually(
        async () => {
          const deps = (await client.list(Deployments, { namespace: 'cli01' })).items.map((d) => d.metadata.name);
          return deps.sort().join() === 'master-m1,worker-w1';
        },
        { timeoutMs: 30_000, what: 'node deployments' },
      );
      // No credentials Secret: the operator says so on the KVMConfig instead of failing.
      const c = await eventually(
        async () => {
          const got = await client.get<KVMConfig>(KVMConfigs, 'cli01', 'default');
          const cond = got.status?.conditions?.find((x) => x.type === 'WorkloadClusterReachable');
          return cond?.status === 'False' ? got : undefined;
        },
        { timeoutMs: 30_000, what: 'WorkloadClusterReachable=False' },
      );
      assert.notEqual(c?.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True');
      const table = await kubectl(cluster.kubeconfigPath, ['get', 'kvmconfigs', '-n', 'default']);
      assert.match(table.stdout, /NAME\s+CUSTOMER\s+STATUS\s+VERSION\s+READY\s+AGE/);
      assert.match(table.stdout, /cli01\s+acme\s+Creating/);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      assert.match(
        metrics,
        /peerpods_handler_duration_seconds_count\{controller="kvm-operator",handler="deployment",event="update"\}/,
      );

      // Teardown through the CLI-run operator: every finalizer released, the namespace gone.
      await client.delete(KVMConfigs, 'cli01', 'default');
      await eventually(
        async () => {
          try {
            await client.get(Namespaces, 'cli01');
            return false;
          } catch (e) {
            return (e as { code?: number }).code === 404;
          }
        },
        { timeoutMs: 60_000, what: 'namespace cli01 gone' },
      );
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    }
  });
});
