// `peerpods init`, `create api` and `create webhook` on disk: the files of kubebuilder's layout, the
// registrations at the markers, and refusals that leave the project as it was.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { createApi } from '../../../src/cli/scaffold/create-api.ts';
import { createWebhook } from '../../../src/cli/scaffold/create-webhook.ts';
import { init } from '../../../src/cli/scaffold/init.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempDir } from './fixture.ts';

async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      const file = path.join(e.parentPath, e.name);
      out.set(path.relative(dir, file), await readFile(file, 'utf8'));
    }
  }
  return out;
}

const read = (dir: string, f: string) => readFileSync(path.join(dir, f), 'utf8');

describe('peerpods init', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    t = await tempDir();
    await init({ domain: 'example.com', repo: 'my-operator', dir: t.dir });
  });
  after(() => t.remove());

  it("writes kubebuilder's layout in TypeScript", () => {
    for (const f of [
      'PROJECT',
      'package.json',
      'tsconfig.json',
      'Dockerfile',
      'README.md',
      'eslint.config.js',
      'src/main.ts',
      'src/setup.ts',
      'test/manager.test.ts',
      'config/crd/kustomization.yaml',
      'config/rbac/role.yaml',
      'config/rbac/leader_election_role.yaml',
      'config/manager/manager.yaml',
      'config/samples/kustomization.yaml',
      'config/default/kustomization.yaml',
      'config/prometheus/monitor.yaml',
    ]) {
      assert.ok(existsSync(path.join(t.dir, f)), f);
    }
  });

  it('makes a package that depends on peerpods and runs generate, tests and deploys through npm scripts', () => {
    const pkg = JSON.parse(read(t.dir, 'package.json')) as {
      dependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    assert.match(pkg.dependencies.peerpods, /^\^\d+\.\d+\.\d+/);
    assert.equal(pkg.scripts.generate, 'peerpods generate');
    assert.equal(pkg.scripts['crds:install'], 'peerpods install --kustomize config/crd');
    assert.equal(pkg.scripts.deploy, 'peerpods deploy --kustomize config/default');
    assert.equal(pkg.scripts.undeploy, 'peerpods undeploy --kustomize config/default');
    // npm runs a script named `install` on every `npm install` of the project.
    assert.equal(pkg.scripts.install, undefined);
    for (const s of ['build', 'test', 'lint', 'start']) assert.ok(pkg.scripts[s], s);
  });

  it('gives the manager leader election, probes and a Deployment that probes them', () => {
    const main = read(t.dir, 'src/main.ts');
    assert.match(main, /leaderElection: flags\['leader-elect'\]/);
    assert.match(main, /leaseName: 'my-operator\.example\.com'/);
    const [ns, deploy] = parseAllDocuments(read(t.dir, 'config/manager/manager.yaml')).map((d) => d.toJS());
    assert.equal(ns.metadata.name, 'my-operator-system');
    const c = deploy.spec.template.spec.containers[0];
    assert.deepEqual(c.args, [
      '--leader-elect',
      '--leader-election-namespace=my-operator-system',
      '--probe-bind-address=:8081',
    ]);
    assert.equal(c.livenessProbe.httpGet.path, '/healthz');
    assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  });

  it('records the project in PROJECT', () => {
    const p = parse(read(t.dir, 'PROJECT'));
    assert.deepEqual(p, {
      layout: 'peerpods.io/v1',
      domain: 'example.com',
      repo: 'my-operator',
      projectName: 'my-operator',
      resources: [],
    });
  });

  it('refuses a directory that holds a project or other files', async () => {
    await assert.rejects(init({ domain: 'example.com', repo: 'x', dir: t.dir }), /already holds a project/);
    const other = await tempDir();
    try {
      await writeFile(path.join(other.dir, 'notes.txt'), 'mine');
      await assert.rejects(init({ domain: 'example.com', repo: 'x', dir: other.dir }), /is not empty \(notes\.txt\)/);
      assert.deepEqual(await readdir(other.dir), ['notes.txt']);
    } finally {
      await other.remove();
    }
  });
});

describe('peerpods create api', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    t = await tempDir();
    await init({ domain: 'example.com', repo: 'my-operator', dir: t.dir });
    await createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir });
  });
  after(() => t.remove());

  it('writes the types, controller, RBAC declarations, sample and test', () => {
    for (const f of [
      'src/api/v1alpha1/alnairpod_types.ts',
      'src/controller/alnairpod_controller.ts',
      'src/controller/alnairpod_rbac.ts',
      'config/samples/alnair_v1alpha1_alnairpod.yaml',
      'test/alnairpod_controller.test.ts',
    ]) {
      assert.ok(existsSync(path.join(t.dir, f)), f);
    }
    const types = read(t.dir, 'src/api/v1alpha1/alnairpod_types.ts');
    assert.match(types, /customResource\('alnair\.example\.com', 'v1alpha1', 'AlnairPod', 'alnairpods', true\)/);
    assert.match(types, /scope: 'Namespaced'/);
    const sample = parse(read(t.dir, 'config/samples/alnair_v1alpha1_alnairpod.yaml'));
    assert.equal(sample.apiVersion, 'alnair.example.com/v1alpha1');
    assert.equal(sample.kind, 'AlnairPod');
  });

  it('writes a reconciler that ignores not-found, writes status through /status and owns what it creates', () => {
    const c = read(t.dir, 'src/controller/alnairpod_controller.ts');
    assert.match(c, /if \(isNotFound\(err\)\) return;/);
    assert.match(c, /patchStatus\(/);
    assert.doesNotMatch(c, /client\.(update|replace)\(AlnairPods/);
    assert.match(c, /setControllerReference\(obj, cm\)/);
    assert.match(c, /predicates: \[or\(generationChanged\(\), labelsChanged\(\)\)\]/);
    assert.match(c, /scope: \{ labelSelector:/);
  });

  it('registers the kind at the markers', () => {
    assert.match(
      read(t.dir, 'src/setup.ts'),
      /import \{ setupAlnairPodController \} from '\.\/controller\/alnairpod_controller\.ts';\n\/\/ \+peerpods:scaffold:imports/,
    );
    assert.match(
      read(t.dir, 'src/setup.ts'),
      / {2}setupAlnairPodController\(manager\);\n {2}\/\/ \+peerpods:scaffold:controllers/,
    );
    assert.match(read(t.dir, 'src/api/crds.ts'), / {2}alnairPodCrd,\n/);
    assert.match(read(t.dir, 'src/controller/rbac.ts'), / {2}\.\.\.alnairPodRules,\n/);
    assert.match(read(t.dir, 'config/crd/kustomization.yaml'), /- bases\/alnair\.example\.com_alnairpods\.yaml/);
    assert.match(read(t.dir, 'config/samples/kustomization.yaml'), /- alnair_v1alpha1_alnairpod\.yaml/);
    const p = parse(read(t.dir, 'PROJECT'));
    assert.deepEqual(p.resources, [
      {
        group: 'alnair',
        version: 'v1alpha1',
        kind: 'AlnairPod',
        plural: 'alnairpods',
        namespaced: true,
        api: true,
        controller: true,
      },
    ]);
  });

  it('refuses to scaffold a kind twice and leaves every file as it was', async () => {
    const before = await snapshot(t.dir);
    await assert.rejects(
      createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir }),
      /already has its types/,
    );
    await assert.rejects(
      createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', resource: false, dir: t.dir }),
      /already has a controller/,
    );
    assert.deepEqual(await snapshot(t.dir), before);
  });

  it('refuses when a file it would write exists, before writing anything', async () => {
    await writeFile(path.join(t.dir, 'src/controller/ship_controller.ts'), '// mine\n');
    const before = await snapshot(t.dir);
    await assert.rejects(
      createApi({ group: 'alnair', version: 'v1', kind: 'Ship', dir: t.dir }),
      /refusing to overwrite existing file\(s\): src\/controller\/ship_controller\.ts/,
    );
    assert.deepEqual(await snapshot(t.dir), before);
  });

  it('scaffolds a cluster-scoped kind without a namespaced child', async () => {
    await createApi({ group: 'fleet', version: 'v1', kind: 'Harbor', namespaced: false, dir: t.dir });
    assert.match(read(t.dir, 'src/api/v1/harbor_types.ts'), /scope: 'Cluster'/);
    assert.match(read(t.dir, 'src/api/v1/harbor_types.ts'), /'harbors', false\)/);
    assert.doesNotMatch(read(t.dir, 'src/controller/harbor_controller.ts'), /ConfigMaps/);
  });
});

describe('peerpods create webhook', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    t = await tempDir();
    await init({ domain: 'example.com', repo: 'my-operator', dir: t.dir });
    await createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir });
  });
  after(() => t.remove());

  it('needs the kind, one webhook type, and a second version for conversion', async () => {
    const before = await snapshot(t.dir);
    await assert.rejects(
      createWebhook({ group: 'alnair', version: 'v1', kind: 'AlnairPod', defaulting: true, dir: t.dir }),
      /AlnairPod alnair\/v1 has no types: run peerpods create api/,
    );
    await assert.rejects(
      createWebhook({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir }),
      /at least one of/,
    );
    await assert.rejects(
      createWebhook({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', conversion: true, dir: t.dir }),
      /--conversion needs a second version of AlnairPod/,
    );
    assert.deepEqual(await snapshot(t.dir), before);
  });

  it('wires the server into main.ts, declares the webhooks and adds the manifests layer', async () => {
    await createWebhook({
      group: 'alnair',
      version: 'v1alpha1',
      kind: 'AlnairPod',
      defaulting: true,
      programmaticValidation: true,
      dir: t.dir,
    });
    const main = read(t.dir, 'src/main.ts');
    assert.match(main, /import \{ setupWebhookServer \} from '\.\/webhook\/server\.ts';/);
    assert.match(main, /await setupWebhookServer\(manager,/);
    assert.match(read(t.dir, 'src/webhook/server.ts'), / {2}setupAlnairPodWebhook\(server\);\n/);
    const hooks = read(t.dir, 'src/webhook/webhooks.ts');
    assert.match(hooks, /type: 'mutating', path: '\/mutate-alnair-example-com-v1alpha1-alnairpod'/);
    assert.match(hooks, /type: 'validating', path: '\/validate-alnair-example-com-v1alpha1-alnairpod'/);
    assert.match(read(t.dir, 'config/default/kustomization.yaml'), /- \.\.\/webhook\n/);
    assert.match(read(t.dir, 'config/rbac/kustomization.yaml'), /- webhook_certificate_role\.yaml\n/);
    assert.ok(existsSync(path.join(t.dir, 'test/alnairpod_webhook.test.ts')));
    await assert.rejects(
      createWebhook({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', defaulting: true, dir: t.dir }),
      /already has webhooks/,
    );
  });
});

describe('a second version and its conversion webhook', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    t = await tempDir();
    await init({ domain: 'example.com', repo: 'my-operator', dir: t.dir });
    await createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir });
  });
  after(() => t.remove());

  it('create api --version adds the types of another version, served but not stored, without a controller', async () => {
    const written = await createApi({ group: 'alnair', version: 'v1', kind: 'AlnairPod', dir: t.dir });
    assert.ok(written.includes('src/api/v1/alnairpod_types.ts'));
    assert.deepEqual(
      written.filter((f) => f.includes('controller')),
      [],
    );
    assert.match(read(t.dir, 'src/api/v1alpha1/alnairpod_types.ts'), /^ {2}storage: true,$/m);
    assert.match(read(t.dir, 'src/api/v1/alnairpod_types.ts'), /^ {2}storage: false,$/m);
    const crds = read(t.dir, 'src/api/crds.ts');
    assert.match(crds, /import \{ alnairPodCrd \} from '\.\/v1alpha1\/alnairpod_types\.ts';/);
    assert.match(crds, /import \{ alnairPodCrd as alnairPodV1Crd \} from '\.\/v1\/alnairpod_types\.ts';/);
    assert.match(crds, / {2}alnairPodCrd,\n {2}alnairPodV1Crd,\n/);
    assert.match(crds, /mergeCrdVersions\(\[/);
    const p = parse(read(t.dir, 'PROJECT'));
    assert.deepEqual(
      p.resources.map((r: { version: string; controller: boolean }) => [r.version, r.controller]),
      [
        ['v1alpha1', true],
        ['v1', false],
      ],
    );
  });

  it('create webhook --conversion refuses a hub that is not the storage version', async () => {
    const before = await snapshot(t.dir);
    await assert.rejects(
      createWebhook({ group: 'alnair', version: 'v1', kind: 'AlnairPod', conversion: true, dir: t.dir }),
      /AlnairPod v1 is not the storage version, and the hub of a conversion must be: run this with --version v1alpha1, or move storage: true to v1/,
    );
    assert.deepEqual(await snapshot(t.dir), before);
  });

  it('create webhook --conversion writes the hub marker, the spoke conversion, the scheme and its wiring', async () => {
    await createWebhook({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', conversion: true, dir: t.dir });
    assert.match(read(t.dir, 'src/api/v1alpha1/alnairpod_conversion.ts'), /export const alnairPodHub = AlnairPods;/);
    const spoke = read(t.dir, 'src/api/v1/alnairpod_conversion.ts');
    assert.match(spoke, /export const alnairPodV1Conversion: Convertible<AlnairPod, Hub> = \{/);
    assert.match(spoke, /convertTo: /);
    assert.match(spoke, /convertFrom: /);
    assert.match(spoke, /TODO/);
    const scheme = read(t.dir, 'src/webhook/conversion.ts');
    assert.match(scheme, /conversions\.hub\(alnairPodHub\)\n {2}\.spoke\(AlnairPodsV1, alnairPodV1Conversion\);/);
    assert.match(scheme, / {2}'alnairpods\.alnair\.example\.com',\n/);
    const server = read(t.dir, 'src/webhook/server.ts');
    assert.match(server, /server\.register\('\/convert', conversionWebhook\(conversions\)\);/);
    assert.match(server, / {4}crds: conversionCrds,\n/);
    assert.match(
      read(t.dir, 'src/webhook/certificates.ts'),
      /spec: \{ conversion: \{ webhook: \{ clientConfig: \{ caBundle \} \} \} \}/,
    );
    assert.match(read(t.dir, 'src/main.ts'), /await setupWebhookServer\(manager,/);
    assert.match(read(t.dir, 'src/controller/rbac.ts'), / {2}\.\.\.conversionRules,\n/);
    assert.ok(existsSync(path.join(t.dir, 'test/alnairpod_conversion.test.ts')));
    const p = parse(read(t.dir, 'PROJECT'));
    assert.deepEqual(p.resources[0].webhooks, { conversion: true });
    await assert.rejects(
      createWebhook({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', conversion: true, dir: t.dir }),
      /AlnairPod already has a conversion webhook \(hub v1alpha1\)/,
    );
  });

  it('admission webhooks added afterwards reuse the server', async () => {
    const written = await createWebhook({
      group: 'alnair',
      version: 'v1',
      kind: 'AlnairPod',
      defaulting: true,
      dir: t.dir,
    });
    assert.ok(!written.includes('src/webhook/certificates.ts'));
    const server = read(t.dir, 'src/webhook/server.ts');
    assert.match(server, /setupAlnairPodWebhook\(server\);/);
    assert.equal(server.match(/conversionWebhook\(conversions\)/g)?.length, 1);
  });
});

describe('the scaffold commands', () => {
  it('exit 1 with the reason for bad input', async () => {
    const t = await tempDir();
    try {
      const outside = runCli([
        'create',
        'api',
        '--group',
        'ship',
        '--version',
        'v1',
        '--kind',
        'Frigate',
        '--dir',
        t.dir,
      ]);
      assert.equal((await outside.exited).code, 1);
      assert.match(outside.output(), /peerpods: no PROJECT file in .*: run `peerpods init` first/);

      const ok = runCli(['init', '--domain', 'example.com', '--repo', 'my-op', '--dir', t.dir]);
      assert.equal((await ok.exited).code, 0, ok.output());

      const bad = runCli(['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'frigate', '--dir', t.dir]);
      assert.equal((await bad.exited).code, 1);
      assert.match(bad.output(), /^peerpods: invalid --kind "frigate": must be UpperCamelCase/m);

      const flag = runCli([
        'create',
        'api',
        '--group',
        'ship',
        '--version',
        'v1',
        '--kind',
        'Frigate',
        '--namespaced=maybe',
        '--dir',
        t.dir,
      ]);
      assert.notEqual((await flag.exited).code, 0);
      assert.match(flag.output(), /--namespaced takes true or false, not "maybe"/);

      const scoped = runCli([
        'create',
        'api',
        '--group',
        'ship',
        '--version',
        'v1',
        '--kind',
        'Frigate',
        '--namespaced=false',
        '--dir',
        t.dir,
      ]);
      assert.equal((await scoped.exited).code, 0, scoped.output());
      assert.match(read(t.dir, 'src/api/v1/frigate_types.ts'), /scope: 'Cluster'/);
    } finally {
      await t.remove();
    }
  });
});
