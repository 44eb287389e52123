// The operator author's workflow end to end, outside the repository, as a user runs it: `peerpods
// init`, `create api` (the AlnairPod of the seeds' tutorial: `containers: Container[]`, `volumes:
// Volume[]`), `create webhook`, a second version (v1) with `create webhook --conversion`; this
// package installed from `npm pack`; the project's `npm run generate`, `npm test` and `npm run
// build`; then its built manager against `peerpods cluster start` — its CRDs installed with `npm run
// crds:install`, its webhooks reached through a Service, the sample applied — the status written
// through `/status`, and the sample read in the other version through the conversion webhook.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { eventually } from '../../helpers/control-plane.ts';
import { ROOT, runCli } from '../../helpers/cli.ts';
import type { CliRun } from '../../helpers/cli.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { installProject, packedTarball } from '../../helpers/package.ts';

interface Run {
  code: number | null;
  output: string;
}

/** This process's environment without node:test's marker, which would make the project's `node --test` skip its files. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** Runs a command to its end without blocking the event loop. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

async function edit(file: string, from: string | RegExp, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const next = text.replace(from, to);
  assert.notEqual(next, text, `${file}: ${String(from)} not found`);
  await writeFile(file, next);
}

/** `eventually`, failing with the manager's output so far (and at once when the manager exited). */
async function whileManagerRuns<T>(
  manager: ChildProcess,
  output: () => string,
  check: () => Promise<T>,
  what: string,
): Promise<NonNullable<T>> {
  const exited = Symbol('exited');
  let result: T | typeof exited;
  try {
    result = await eventually(
      async () => (manager.exitCode !== null || manager.signalCode !== null ? exited : check()),
      { timeoutMs: 60_000, what },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\nmanager output:\n${output()}`);
  }
  if (result === exited)
    throw new Error(`the manager exited (${manager.exitCode ?? manager.signalCode}):\n${output()}`);
  return result as NonNullable<T>;
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

describe('a scaffolded operator, from init to a status written through /status', { timeout: 1_200_000 }, () => {
  let root: string;
  let proj: string;
  let kubeconfig: string;
  let cluster: CliRun | undefined;
  let manager: ChildProcess | undefined;
  let managerOutput = '';

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'peerpods-operator-'));
    assert.ok(path.relative(ROOT, root).startsWith('..'), 'the project is outside the repository');
    proj = path.join(root, 'alnair-operator');
    kubeconfig = path.join(root, 'kubeconfig');
  });

  after(async () => {
    await stop(manager);
    if (cluster) await stop(cluster.child);
    await rm(root, { recursive: true, force: true });
  });

  it('scaffolds the project, the AlnairPod API with containers and volumes, and its webhooks', async () => {
    const cli = async (...args: string[]) => {
      const r = runCli([...args, '--dir', proj]);
      assert.equal((await r.exited).code, 0, r.output());
    };
    await cli('init', '--domain', 'example.com', '--repo', 'alnair-operator');
    await cli('create', 'api', '--group', 'alnair', '--version', 'v1alpha1', '--kind', 'AlnairPod');
    const types = path.join(proj, 'src/api/v1alpha1/alnairpod_types.ts');
    // The tutorial's spec: core types reused from the built-in OpenAPI, as kubebuilder embeds corev1 types.
    await edit(
      types,
      "import type { KubeObject, Static } from 'peerpods/runtime';",
      "import type { KubeObject, Static } from 'peerpods/runtime';\nimport { coreSchemas } from 'peerpods/kube';",
    );
    await edit(
      types,
      /export const AlnairPodSpec = s\.object\(\{\n/,
      'export const AlnairPodSpec = s.object({\n  containers: s.array(coreSchemas.Container),\n  volumes: s.array(coreSchemas.Volume),\n',
    );
    const sample = path.join(proj, 'config/samples/alnair_v1alpha1_alnairpod.yaml');
    await edit(
      sample,
      'spec:\n  foo: bar\n',
      'spec:\n  containers:\n  - name: main\n    image: registry.k8s.io/pause:3.9\n    volumeMounts:\n    - name: data\n      mountPath: /data\n  volumes:\n  - name: data\n    emptyDir: {}\n',
    );
    await cli(
      'create',
      'webhook',
      '--group',
      'alnair',
      '--version',
      'v1alpha1',
      '--kind',
      'AlnairPod',
      '--defaulting',
      '--programmatic-validation',
    );
    await cli('create', 'api', '--group', 'alnair', '--version', 'v1', '--kind', 'AlnairPod');
    await cli('create', 'webhook', '--group', 'alnair', '--version', 'v1alpha1', '--kind', 'AlnairPod', '--conversion');
  });

  it('installs this package from npm pack and generates its manifests', async () => {
    const tarball = await packedTarball();
    await installProject(proj, [tarball]);
    const gen = await run('npm', ['run', 'generate'], proj);
    assert.equal(gen.code, 0, gen.output);
    const crd = parse(await readFile(path.join(proj, 'config/crd/bases/alnair.example.com_alnairpods.yaml'), 'utf8'));
    assert.deepEqual(
      crd.spec.versions.map((v: { name: string; storage: boolean }) => [v.name, v.storage]),
      [
        ['v1', false],
        ['v1alpha1', true],
      ],
    );
    assert.equal(crd.spec.conversion.strategy, 'Webhook');
    const v1alpha1 = crd.spec.versions.find((v: { name: string }) => v.name === 'v1alpha1');
    const spec = v1alpha1.schema.openAPIV3Schema.properties.spec.properties;
    // corev1.Container's schema, as controller-gen embeds it: name required, image and volumeMounts known.
    assert.equal(spec.containers.type, 'array');
    assert.deepEqual(spec.containers.items.required, ['name']);
    assert.equal(spec.containers.items.properties.image.type, 'string');
    assert.equal(spec.containers.items.properties.volumeMounts.type, 'array');
    assert.deepEqual(spec.volumes.items.required, ['name']);
    assert.equal(spec.volumes.items.properties.emptyDir.type, 'object');
    const again = await run('npm', ['run', 'generate'], proj);
    assert.match(again.output, /3 file\(s\) unchanged/);
  });

  it('passes its own tests and builds', async () => {
    const test = await run('npm', ['test'], proj);
    assert.equal(test.code, 0, test.output);
    assert.match(test.output, /# pass [1-9]/);
    assert.match(test.output, /# fail 0/);
    assert.match(test.output, /ok \d+ - AlnairPod objects written in one version read back in every other/);
    const build = await run('npm', ['run', 'build'], proj);
    assert.equal(build.code, 0, build.output);
    assert.ok(existsSync(path.join(proj, 'dist/main.js')));
  });

  it('runs its manager against peerpods cluster start: defaulted by its webhook, status through /status', async () => {
    cluster = runCli(['cluster', 'start', '--port', '0', '--nodes', '1', '--kubeconfig', kubeconfig]);
    await cluster.waitForLine(/listening on https:\/\/127\.0\.0\.1:/, 60_000);
    await eventually(() => existsSync(kubeconfig), { timeoutMs: 30_000, what: 'kubeconfig' });
    const env = { KUBECONFIG: kubeconfig };

    const install = await run('npm', ['run', 'crds:install'], proj, env);
    assert.equal(install.code, 0, install.output);
    assert.match(install.output, /applied CustomResourceDefinition alnairpods\.alnair\.example\.com/);

    // The webhook as deployed, except that its Service routes to this machine: the Service keeps
    // hand-written Endpoints (no selector) pointing at the port the manager listens on.
    const port = await freePort();
    const ns = 'alnair-operator-system';
    let r = await kubectl(kubeconfig, ['create', 'namespace', ns]);
    assert.equal(r.code, 0, r.stderr);
    const service = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'alnair-operator-webhook-service', namespace: ns },
          spec: { ports: [{ port: 443, targetPort: port }] },
        },
        {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name: 'alnair-operator-webhook-service', namespace: ns },
          subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }],
        },
      ],
    };
    r = await kubectl(kubeconfig, ['apply', '-f', '-'], { input: JSON.stringify(service) });
    assert.equal(r.code, 0, r.stderr);
    r = await kubectl(kubeconfig, ['apply', '-f', path.join(proj, 'config/webhook/manifests.yaml')]);
    assert.equal(r.code, 0, r.stderr);

    manager = spawn(
      process.execPath,
      [
        'dist/main.js',
        '--kubeconfig',
        kubeconfig,
        '--probe-bind-address',
        '127.0.0.1:0',
        '--webhook-bind-address',
        `127.0.0.1:${port}`,
        '--webhook-cert-dir',
        path.join(root, 'certs'),
        '--leader-elect',
        '--leader-election-namespace',
        ns,
      ],
      { cwd: proj, env: childEnv({ POD_NAMESPACE: ns }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    manager.stdout?.on('data', (d: Buffer) => (managerOutput += d.toString()));
    manager.stderr?.on('data', (d: Buffer) => (managerOutput += d.toString()));

    // The manager issued its CA and injected it into the webhook configurations.
    const managerLog = () => managerOutput;
    const caBundle = await whileManagerRuns(
      manager,
      managerLog,
      async () => {
        const m = await kubectl(kubeconfig, [
          'get',
          'mutatingwebhookconfiguration',
          'alnair-operator-mutating-webhook-configuration',
          '-o',
          'jsonpath={.webhooks[0].clientConfig.caBundle}',
        ]);
        return m.stdout;
      },
      'the caBundle injected',
    );
    r = await kubectl(kubeconfig, [
      '-n',
      ns,
      'get',
      'secret',
      'alnair-operator-webhook-server-cert',
      '-o',
      'jsonpath={.data.ca\\.crt}',
    ]);
    assert.equal(r.stdout, caBundle);

    await whileManagerRuns(
      manager,
      managerLog,
      async () => {
        const a = await kubectl(kubeconfig, [
          'apply',
          '-f',
          path.join(proj, 'config/samples/alnair_v1alpha1_alnairpod.yaml'),
        ]);
        return a.code === 0 ? a : undefined;
      },
      'the sample admitted',
    );
    interface AlnairPod {
      metadata: {
        generation: number;
        uid: string;
        managedFields: Array<{
          manager: string;
          operation: string;
          subresource?: string;
          fieldsV1: { 'f:status'?: unknown };
        }>;
      };
      spec: { foo?: string; containers: Array<{ name: string }>; volumes: Array<{ name: string }> };
      status?: { observedGeneration?: number; conditions?: Array<{ type: string; status: string }> };
    }
    const obj = (await whileManagerRuns(
      manager,
      managerLog,
      async () => {
        const g = await kubectl(kubeconfig, [
          'get',
          'alnairpod',
          'alnairpod-sample',
          '-n',
          'default',
          '-o',
          'json',
          '--show-managed-fields',
        ]);
        const o = JSON.parse(g.stdout) as AlnairPod;
        return o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? o : undefined;
      },
      'a Ready status',
    )) as AlnairPod;
    assert.equal(obj.spec.foo, 'default', 'the defaulting webhook filled in spec.foo');
    assert.deepEqual(
      obj.spec.containers.map((c) => c.name),
      ['main'],
    );
    assert.deepEqual(
      obj.spec.volumes.map((v) => v.name),
      ['data'],
    );
    assert.equal(obj.status?.observedGeneration, obj.metadata.generation);

    // Read in v1: the API server converts the stored v1alpha1 object through the manager's conversion
    // webhook, which it calls through the Service with the CA the manager injected into the CRD.
    r = await kubectl(kubeconfig, [
      'get',
      'crd',
      'alnairpods.alnair.example.com',
      '-o',
      'jsonpath={.spec.conversion.webhook.clientConfig.caBundle}',
    ]);
    assert.equal(r.stdout, caBundle);
    r = await kubectl(kubeconfig, [
      'get',
      'alnairpods.v1.alnair.example.com',
      'alnairpod-sample',
      '-n',
      'default',
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const asV1 = JSON.parse(r.stdout) as { apiVersion: string; metadata: { uid: string }; spec: { foo?: string } };
    assert.equal(asV1.apiVersion, 'alnair.example.com/v1');
    assert.equal(asV1.metadata.uid, obj.metadata.uid);
    assert.equal(asV1.spec.foo, 'default');
    const statusWrite = obj.metadata.managedFields.find((f) => f.manager === 'alnair-operator');
    assert.equal(statusWrite?.subresource, 'status', JSON.stringify(obj.metadata.managedFields));
    assert.ok(statusWrite?.fieldsV1['f:status']);
    assert.ok(
      !obj.metadata.managedFields.some((f) => f.manager === 'alnair-operator' && f.subresource !== 'status'),
      'never written through the main endpoint',
    );

    // What it creates is owned by it.
    r = await kubectl(kubeconfig, [
      'get',
      'configmap',
      'alnairpod-sample-alnairpod',
      '-n',
      'default',
      '-o',
      'jsonpath={.metadata.ownerReferences[0].uid}',
    ]);
    assert.equal(r.stdout, obj.metadata.uid);

    // Its validating webhook refuses what the template forbids.
    r = await kubectl(kubeconfig, [
      'patch',
      'alnairpod',
      'alnairpod-sample',
      '-n',
      'default',
      '--type=merge',
      '-p',
      '{"spec":{"foo":"forbidden"}}',
    ]);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /admission webhook "valnairpod-v1alpha1\.alnair\.example\.com" denied the request: spec\.foo: Invalid value: "forbidden"/,
    );

    // SIGTERM: a graceful stop, exit 0.
    const exited = new Promise<number | null>((res) => manager?.once('exit', (code) => res(code)));
    manager.kill('SIGTERM');
    assert.equal(await exited, 0, managerOutput);
  });

  it('deploys and undeploys config/default through npm scripts (peerpods deploy --kustomize)', async () => {
    const env = { KUBECONFIG: kubeconfig };
    const ns = 'alnair-operator-system';
    const deploy = await run('npm', ['run', 'deploy'], proj, env);
    assert.equal(deploy.code, 0, deploy.output);
    for (const line of [
      'applied ClusterRole alnair-operator-manager-role',
      `applied Deployment ${ns}/alnair-operator-controller-manager`,
      'applied MutatingWebhookConfiguration alnair-operator-mutating-webhook-configuration',
    ]) {
      assert.ok(deploy.output.includes(line), `${line} in:\n${deploy.output}`);
    }
    let r = await kubectl(kubeconfig, [
      'auth',
      'can-i',
      'patch',
      'alnairpods.alnair.example.com',
      '--subresource=status',
      `--as=system:serviceaccount:${ns}:alnair-operator-controller-manager`,
    ]);
    assert.equal(r.stdout.trim(), 'yes', 'the generated role grants the status writes');
    r = await kubectl(kubeconfig, [
      'auth',
      'can-i',
      'update',
      'alnairpods.alnair.example.com',
      `--as=system:serviceaccount:${ns}:alnair-operator-controller-manager`,
    ]);
    assert.equal(r.stdout.trim(), 'no', 'but not writes of the main resource');

    const undeploy = await run('npm', ['run', 'undeploy'], proj, env);
    assert.equal(undeploy.code, 0, undeploy.output);
    assert.match(undeploy.output, new RegExp(`Namespace ${ns} kept: not created by deploy`));
    r = await kubectl(kubeconfig, ['get', 'deployment', '-n', ns, '-o', 'name']);
    assert.equal(r.stdout.trim(), '');
    r = await kubectl(kubeconfig, ['get', 'crd', 'alnairpods.alnair.example.com', '-o', 'name']);
    assert.equal(
      r.stdout.trim(),
      'customresourcedefinition.apiextensions.k8s.io/alnairpods.alnair.example.com',
      'CRDs stay',
    );
  });
});
