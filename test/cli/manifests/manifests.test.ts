// `peerpods manifests | install | uninstall | deploy | undeploy | run peerpod-controller`, through
// the real CLI, against the embedded control plane.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFile, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import {
  ClusterRoles,
  ConfigMaps,
  CustomResourceDefinitions,
  Deployments,
  KubeClient,
  Namespaces,
  Roles,
  ServiceAccounts,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods } from '../../../src/peerpod/index.ts';
import { buildFiles, deployObjects } from '../../../src/cli/manifests/layers.ts';
import { startTestCluster, eventually } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';

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

async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await filesUnder(path.join(dir, e.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

describe('peerpods manifests', () => {
  it('config/ in the repository is what the generator writes', async () => {
    const want = buildFiles();
    assert.deepEqual(await filesUnder(path.join(root, 'config')), want.map((f) => f.path).sort());
    for (const f of want) {
      assert.equal(await readFile(path.join(root, 'config', f.path), 'utf8'), f.content, `config/${f.path} is stale`);
    }
  });

  it('writes kustomize layers: least-privilege RBAC, a leader-elected Deployment with probes', async () => {
    const out = path.join(root, '.scratch', `manifests-${process.pid}`);
    try {
      const { stdout } = await cli(['manifests', '-o', out, '--namespace', 'pp-test', '--image', 'example/peerpods:1']);
      assert.match(stdout, /wrote \d+ files/);
      const kust = parse(await readFile(path.join(out, 'default/kustomization.yaml'), 'utf8')) as {
        resources: string[];
      };
      assert.deepEqual(kust.resources, ['../crd', '../rbac', '../manager']);
      const load = async (rel: string) => parse(await readFile(path.join(out, rel), 'utf8')) as KubeObject;
      const settings = (await load('rbac/role_peerpods-settings-reader.yaml')) as KubeObject & {
        rules: Array<{ resources: string[]; resourceNames?: string[]; verbs: string[] }>;
      };
      assert.deepEqual(
        settings.rules.map((r) => [r.resources[0], r.resourceNames]),
        [
          ['configmaps', ['peer-pods-cm']],
          ['secrets', ['peer-pods-secret']],
        ],
      );
      assert.ok(settings.rules.every((r) => !r.verbs.includes('update') && !r.verbs.includes('*')));
      const le = (await load('rbac/role_peerpods-leader-election-role.yaml')) as KubeObject & {
        rules: Array<{ resources: string[] }>;
      };
      assert.ok(le.rules.some((r) => r.resources.includes('leases')));
      const dep = await load('manager/deployment_peerpods-controller-manager.yaml');
      const c = (dep.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec
        .containers[0] as {
        image: string;
        args: string[];
        env: Array<{ name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
        livenessProbe: { httpGet: { port: number } };
        readinessProbe: { httpGet: { port: number } };
      };
      assert.equal(c.image, 'example/peerpods:1');
      assert.deepEqual(c.args.slice(0, 3), ['run', 'peerpod-controller', '--leader-elect']);
      assert.equal(
        c.env.find((e) => e.name === 'PEERPODS_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath,
        'metadata.namespace',
      );
      assert.equal(c.livenessProbe.httpGet.port, 8081);
      assert.equal(c.readinessProbe.httpGet.port, 8081);
      assert.equal(dep.metadata.namespace, 'pp-test');
      // kubectl builds config/default into the same objects `peerpods deploy` applies.
      const built = await run('kubectl', ['kustomize', path.join(out, 'default')]).catch(() => undefined);
      if (built) {
        const docs = parseAllDocuments(built.stdout).map((d) => d.toJSON() as KubeObject);
        const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
        assert.deepEqual(docs.map(key).sort(), deployObjects({ namespace: 'pp-test' }).map(key).sort());
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

describe('peerpods install | deploy | run against the embedded control plane', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let client: KubeClient;
  const kc = () => ['--kubeconfig', cluster.kubeconfigPath];

  before(async () => {
    cluster = await startTestCluster();
    client = KubeClient.fromKubeconfigString(cluster.kubeconfig, { metricsRegistry: null, logger: silentLogger() });
  });
  after(async () => {
    client.close();
    await cluster.stop();
  });

  it('install and uninstall the CRD', async () => {
    await cli(['install', ...kc()]);
    const crd = await client.get(CustomResourceDefinitions, 'peerpods.confidentialcontainers.org');
    assert.ok(crd.metadata.managedFields?.some((m) => m.manager === 'peerpods' && m.operation === 'Apply'));
    await cli(['install', ...kc()]); // idempotent
    await cli(['uninstall', ...kc()]);
    await eventually(async () => {
      try {
        await client.get(CustomResourceDefinitions, 'peerpods.confidentialcontainers.org');
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
  });

  it('deploy applies config/default (server-side apply, field manager peerpods); undeploy removes it but the CRD', async () => {
    await cli(['deploy', ...kc()]);
    await cli(['deploy', ...kc()]); // re-applying is a no-op, not a conflict
    const dep = await client.get(Deployments, 'peerpods-controller-manager', 'peerpods-system');
    assert.ok(dep.metadata.managedFields?.some((m) => m.manager === 'peerpods'));
    await client.get(ServiceAccounts, 'peerpods-controller-manager', 'peerpods-system');
    await client.get(ClusterRoles, 'peerpods-manager-role');
    await client.get(Roles, 'peerpods-leader-election-role', 'peerpods-system');
    await cli(['undeploy', ...kc()]);
    await eventually(async () => {
      try {
        await client.get(Deployments, 'peerpods-controller-manager', 'peerpods-system');
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
    await client.get(CustomResourceDefinitions, 'peerpods.confidentialcontainers.org');
  });

  it('run peerpod-controller: probes answer, a dangling PeerPod is cleaned up, SIGTERM stops it', async () => {
    await cli(['install', ...kc()]);
    const ns = 'pp-run';
    await client.create(Namespaces, { metadata: { name: ns } });
    await client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: ns },
      data: { CLOUD_PROVIDER: 'simulated' },
    });
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'bin/peerpods.js'),
        'run',
        'peerpod-controller',
        ...kc(),
        '--leader-elect',
        '--orphan-grace',
        '1m',
        '--sweep-interval',
        '5s',
        '--health-probe-bind-address',
        `127.0.0.1:${port}`,
      ],
      {
        cwd: root,
        env: { ...process.env, PEERPODS_NAMESPACE: ns, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
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
      const pp = await client.create(PeerPods, {
        apiVersion: 'confidentialcontainers.org/v1alpha1',
        kind: 'PeerPod',
        metadata: { name: 'dangling', namespace: 'default', finalizers: [PEERPOD_FINALIZER] },
        spec: { cloudProvider: 'simulated', instanceID: 'sim-7' },
      });
      await client.delete(PeerPods, pp.metadata.name as string, 'default');
      await eventually(
        async () => {
          try {
            await client.get(PeerPods, 'dangling', 'default');
            return false;
          } catch (err) {
            return (err as { code?: number }).code === 404;
          }
        },
        { timeoutMs: 20_000, what: 'the dangling PeerPod to go' },
      );
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      assert.match(
        metrics,
        /peerpod_instance_deletions_total\{provider="simulated",result="deleted",source="finalizer"\} 1/,
      );
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    }
  });
});
