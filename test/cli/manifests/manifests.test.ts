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
  Secrets,
  ServiceAccounts,
  silentLogger,
} from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { LEADER_ELECTION_ID, PEERPOD_FINALIZER, PeerPods } from '../../../src/peerpod/index.ts';
import { buildFiles, buildLayers, deployObjects } from '../../../src/cli/manifests/layers.ts';
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
      type Rule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] };
      const rulesOf = async (rel: string) => ((await load(rel)) as KubeObject & { rules: Rule[] }).rules;
      const role = await rulesOf('rbac/role_peerpod-controller.yaml');
      const settings = role.filter((r) => ['configmaps', 'secrets'].includes(r.resources[0]));
      assert.deepEqual(
        settings.map((r) => [r.resources[0], r.resourceNames]),
        [
          ['configmaps', ['peer-pods-cm']],
          ['secrets', ['peer-pods-secret']],
        ],
      );
      assert.ok(settings.every((r) => !r.verbs.includes('update') && !r.verbs.includes('*')));
      // Leader election in a Role of its own namespace, on its own Lease (create cannot name one).
      const leases = role.filter((r) => r.resources.includes('leases'));
      assert.deepEqual(
        leases.map((r) => [r.verbs, r.resourceNames]),
        [
          [['create'], undefined],
          [['get', 'update'], [LEADER_ELECTION_ID]],
        ],
      );
      const dep = await load('manager/deployment_peerpod-controller.yaml');
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

describe('peerpods manifests: least-privilege identities', () => {
  type Rule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] };
  type Binding = KubeObject & { roleRef: { kind: string; name: string }; subjects: KubeObject['metadata'][] };
  const { rbac, manager } = buildLayers({ namespace: 'pp-test' });
  const of = (kind: string) => rbac.filter((o) => o.kind === kind);
  const rules = (kind: 'ClusterRole' | 'Role', name: string): Rule[] =>
    (of(kind).find((o) => o.metadata.name === name) as (KubeObject & { rules: Rule[] }) | undefined)?.rules ?? [];
  const COMPONENTS = [
    'kvm-operator',
    'peer-pods-webhook',
    'peerpod-adaptor',
    'peerpod-controller',
    'peerpodconfig-controller',
  ];

  it('gives each component its own ServiceAccount, bound only to roles of its own name', () => {
    assert.deepEqual(
      of('ServiceAccount')
        .map((o) => o.metadata.name)
        .sort(),
      COMPONENTS,
    );
    for (const b of [...of('ClusterRoleBinding'), ...of('RoleBinding')] as Binding[]) {
      assert.equal(b.roleRef.name, b.metadata.name);
      assert.deepEqual(b.subjects, [{ kind: 'ServiceAccount', name: b.metadata.name, namespace: 'pp-test' }]);
    }
    // Each operator Deployment is named after its component and runs as it.
    const deployments = manager.filter((o) => o.kind === 'Deployment');
    assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), [
      'kvm-operator',
      'peerpod-controller',
      'peerpodconfig-controller',
    ]);
    for (const d of deployments) {
      const spec = (d.spec as { template: { spec: { serviceAccountName: string } } }).template.spec;
      assert.equal(spec.serviceAccountName, d.metadata.name);
    }
  });

  it('no wildcard, Leases only in a namespace Role, the webhook without rules or token', () => {
    for (const r of [...of('ClusterRole'), ...of('Role')].flatMap((o) => (o as KubeObject & { rules: Rule[] }).rules)) {
      assert.ok(!r.verbs.includes('*') && !r.resources.includes('*') && !r.apiGroups.includes('*'), JSON.stringify(r));
    }
    for (const c of of('ClusterRole')) {
      assert.ok(!rules('ClusterRole', c.metadata.name as string).some((r) => r.resources.includes('leases')));
    }
    // Roles in the operator's namespace; the kvm-operator's also where its KVMConfigs and credentials live.
    assert.deepEqual(
      of('Role').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      [
        'pp-test/peerpod-controller',
        'pp-test/peerpodconfig-controller',
        'pp-test/peerpod-adaptor',
        'pp-test/kvm-operator',
        'default/kvm-operator',
      ],
    );
    // No component reads Secrets cluster-wide: each reads only named ones, or those of one namespace.
    for (const c of of('ClusterRole')) {
      const secrets = rules('ClusterRole', c.metadata.name as string).filter((r) => r.resources.includes('secrets'));
      assert.deepEqual(secrets, [], `${c.metadata.name} reads Secrets cluster-wide`);
    }
    const webhook = of('ServiceAccount').find((o) => o.metadata.name === 'peer-pods-webhook') as KubeObject & {
      automountServiceAccountToken?: boolean;
    };
    assert.equal(webhook.automountServiceAccountToken, false);
    assert.deepEqual(rules('ClusterRole', 'peer-pods-webhook'), []);
    assert.deepEqual(rules('Role', 'peer-pods-webhook'), []);
  });

  it('the PeerPodConfig controller writes only in its namespace and only its own objects', () => {
    const cluster = rules('ClusterRole', 'peerpodconfig-controller');
    assert.deepEqual([...new Set(cluster.flatMap((r) => r.resources))].sort(), [
      'mutatingwebhookconfigurations',
      'namespaces',
      'nodes',
      'nodes/status',
      'peerpods',
    ]);
    // What capacity reads cluster-wide: the kube-system namespace (this cluster's VM tag) by name,
    // and a list of the PeerPods (the VM sizes in use), nothing else.
    assert.deepEqual(
      cluster
        .filter((r) => r.resources[0] === 'namespaces' || r.resources[0] === 'peerpods')
        .map((r) => [r.resources[0], r.verbs, r.resourceNames]),
      [
        ['namespaces', ['get'], ['kube-system']],
        ['peerpods', ['list'], undefined],
      ],
    );
    const named = (rs: Rule[]) => rs.filter((r) => !(r.verbs.length === 1 && r.verbs[0] === 'create'));
    // kube cannot narrow create by name; every other verb on what it deploys names the object.
    for (const r of named(cluster).filter((r) => r.resources[0] === 'mutatingwebhookconfigurations')) {
      assert.deepEqual(r.resourceNames, ['peer-pods-webhook-pp-test']);
    }
    const role = rules('Role', 'peerpodconfig-controller');
    const deployed = ['daemonsets', 'deployments', 'services', 'secrets'];
    assert.deepEqual(
      named(role)
        .filter((r) => deployed.includes(r.resources[0]))
        .map((r) => [r.resources[0], r.resourceNames]),
      [
        ['daemonsets', ['peerpodconfig-ctrl-caa-daemon']],
        ['deployments', ['peer-pods-webhook']],
        ['services', ['peer-pods-webhook-svc']],
        ['secrets', ['peer-pods-webhook-svc-secret']],
        ['secrets', ['peer-pods-secret']],
      ],
    );
    // The provider settings capacity is asked with: read by name, only.
    assert.deepEqual(
      role
        .filter((r) => r.resources[0] === 'configmaps' || r.resourceNames?.[0] === 'peer-pods-secret')
        .map((r) => [r.resources[0], r.verbs, r.resourceNames]),
      [
        ['configmaps', ['get'], ['peer-pods-cm']],
        ['secrets', ['get'], ['peer-pods-secret']],
      ],
    );
    // The garbage collector deletes what it deployed (owner references); it only creates and patches.
    assert.ok(
      role
        .filter((r) => deployed.includes(r.resources[0]))
        .every((r) => !r.verbs.includes('delete') && !r.verbs.includes('update')),
    );
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

  const gone = async (get: () => Promise<unknown>): Promise<boolean> => {
    try {
      await get();
      return false;
    } catch (err) {
      return (err as { code?: number }).code === 404;
    }
  };

  it('deploy applies config/default (server-side apply, field manager peerpods); undeploy removes it but the CRD', async () => {
    await cli(['deploy', ...kc()]);
    await cli(['deploy', ...kc()]); // re-applying is a no-op, not a conflict
    const dep = await client.get(Deployments, 'peerpod-controller', 'peerpods-system');
    assert.ok(dep.metadata.managedFields?.some((m) => m.manager === 'peerpods'));
    await client.get(ServiceAccounts, 'peerpod-controller', 'peerpods-system');
    await client.get(ClusterRoles, 'peerpod-controller');
    await client.get(Roles, 'peerpod-controller', 'peerpods-system');
    // deploy made the namespace, and says so (the second deploy kept the mark).
    const ns = await client.get(Namespaces, 'peerpods-system');
    assert.equal(ns.metadata.annotations?.['peerpods.io/created-by-deploy'], 'true');
    await cli(['undeploy', ...kc()]);
    await eventually(() => gone(() => client.get(Deployments, 'peerpod-controller', 'peerpods-system')));
    await eventually(() => gone(() => client.get(ClusterRoles, 'peerpod-controller')));
    await eventually(() => gone(() => client.get(Namespaces, 'peerpods-system')), { timeoutMs: 30_000 });
    await client.get(CustomResourceDefinitions, 'peerpods.confidentialcontainers.org');
  });

  it("undeploy keeps a namespace that existed before deploy, with the administrator's ConfigMap and Secret", async () => {
    const ns = 'pp-existing';
    await client.create(Namespaces, { metadata: { name: ns, labels: { team: 'ops' } } });
    await client.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: ns },
      data: { CLOUD_PROVIDER: 'qemu' },
    });
    await client.create(Secrets, { metadata: { name: 'peer-pods-secret', namespace: ns }, stringData: { KEY: 'v' } });
    await cli(['deploy', ...kc(), '--namespace', ns]);
    const before = await client.get(Namespaces, ns);
    // Not taken over: neither marked as deploy's nor labelled.
    assert.equal(before.metadata.annotations?.['peerpods.io/created-by-deploy'], undefined);
    assert.deepEqual(before.metadata.labels, { team: 'ops', 'kubernetes.io/metadata.name': ns });
    await client.get(Deployments, 'peerpod-controller', ns);
    const { stdout } = await cli(['undeploy', ...kc(), '--namespace', ns]);
    assert.match(stdout, new RegExp(`Namespace ${ns} kept: not created by deploy`));
    await eventually(() => gone(() => client.get(Deployments, 'peerpod-controller', ns)));
    await eventually(() => gone(() => client.get(ServiceAccounts, 'peerpodconfig-controller', ns)));
    const after = await client.get(Namespaces, ns);
    assert.equal(after.metadata.deletionTimestamp, undefined);
    const cm = await client.get<KubeObject & { data?: Record<string, string> }>(ConfigMaps, 'peer-pods-cm', ns);
    assert.equal(cm.data?.CLOUD_PROVIDER, 'qemu');
    await client.get(Secrets, 'peer-pods-secret', ns);
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
