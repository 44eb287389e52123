// `peerpods generate` (make manifests): the project's CRDs and RBAC from its TypeScript, loaded
// through the project's tsx; idempotent; hand-edited output is kept unless --force.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { createApi } from '../../../src/cli/scaffold/create-api.ts';
import { createWebhook } from '../../../src/cli/scaffold/create-webhook.ts';
import { generate } from '../../../src/cli/scaffold/generate.ts';
import { stateOf, withHeader } from '../../../src/cli/scaffold/generated-file.ts';
import { init } from '../../../src/cli/scaffold/init.ts';
import { normalizeRules } from '../../../src/cli/scaffold/manifests.ts';
import { linkSources, tempDir } from './fixture.ts';

const CRD = 'config/crd/bases/alnair.example.com_alnairpods.yaml';
const ROLE = 'config/rbac/role.yaml';
const WEBHOOKS = 'config/webhook/manifests.yaml';

describe('generated files', () => {
  it('carry a hash of their content, so an edit shows', () => {
    const text = withHeader('kind: X\n');
    assert.equal(stateOf(text), 'generated');
    assert.equal(stateOf(text.replace('X', 'Y')), 'edited');
    assert.equal(stateOf('kind: X\n'), 'edited');
  });

  it('fold rules as controller-gen does: verbs united per resource, same verbs grouped, sorted', () => {
    assert.deepEqual(
      normalizeRules([
        { apiGroups: ['b.io'], resources: ['things'], verbs: ['list', 'get'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        { apiGroups: ['b.io'], resources: ['things'], verbs: ['watch', 'get'] },
        { apiGroups: ['b.io'], resources: ['others'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['b.io'], resources: ['things/status'], verbs: ['patch'], resourceNames: ['one'] },
      ]),
      [
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        { apiGroups: ['b.io'], resources: ['others', 'things'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['b.io'], resources: ['things/status'], resourceNames: ['one'], verbs: ['patch'] },
      ],
    );
  });
});

describe('peerpods generate', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  const read = (f: string) => readFileSync(path.join(t.dir, f), 'utf8');
  before(async () => {
    t = await tempDir();
    await init({ domain: 'example.com', repo: 'my-operator', dir: t.dir });
    await createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir });
    await linkSources(t.dir);
  });
  after(() => t.remove());

  it('writes the CRD from the types and the ClusterRole from the RBAC declarations', async () => {
    const r = await generate({ dir: t.dir });
    assert.deepEqual(r.written.sort(), [CRD, ROLE]);
    const crd = parse(read(CRD));
    assert.equal(crd.metadata.name, 'alnairpods.alnair.example.com');
    assert.equal(crd.spec.scope, 'Namespaced');
    const v = crd.spec.versions[0];
    assert.deepEqual([v.name, v.served, v.storage, v.subresources], ['v1alpha1', true, true, { status: {} }]);
    const schema = v.schema.openAPIV3Schema;
    assert.deepEqual(schema.properties.spec.properties.foo, {
      type: 'string',
      description: 'Foo is an example field of AlnairPod.',
    });
    assert.deepEqual(schema.properties.status.properties.conditions['x-kubernetes-list-map-keys'], ['type']);
    const role = parse(read(ROLE));
    assert.equal(role.kind, 'ClusterRole');
    assert.equal(role.metadata.name, 'my-operator-manager-role');
    assert.deepEqual(
      role.rules.find((x: { resources: string[] }) => x.resources.includes('alnairpods/status')),
      { apiGroups: ['alnair.example.com'], resources: ['alnairpods/status'], verbs: ['get', 'patch', 'update'] },
    );
  });

  it('is idempotent: a second run writes nothing', async () => {
    const crd = read(CRD);
    const r = await generate({ dir: t.dir });
    assert.deepEqual(r.written, []);
    assert.deepEqual(r.unchanged.sort(), [CRD, ROLE]);
    assert.equal(read(CRD), crd);
  });

  it('follows edits of the types and the declarations', async () => {
    const types = path.join(t.dir, 'src/api/v1alpha1/alnairpod_types.ts');
    await writeFile(
      types,
      (await readFile(types, 'utf8')).replace(
        "foo: s.string({ description: 'Foo is an example field of AlnairPod.' }),",
        'foo: s.string(),\n  replicas: s.integer({ minimum: 0 }),',
      ),
    );
    const rbac = path.join(t.dir, 'src/controller/alnairpod_rbac.ts');
    await writeFile(
      rbac,
      (await readFile(rbac, 'utf8')).replace(
        '];',
        "  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },\n];",
      ),
    );
    const r = await generate({ dir: t.dir });
    assert.deepEqual(r.written.sort(), [CRD, ROLE]);
    assert.deepEqual(parse(read(CRD)).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas, {
      type: 'integer',
      minimum: 0,
    });
    assert.ok(parse(read(ROLE)).rules.some((x: { apiGroups: string[] }) => x.apiGroups[0] === 'apps'));
  });

  it('refuses to overwrite a hand-edited generated file unless --force', async () => {
    const edited = read(ROLE).replace('- watch', '- watch\n      - delete');
    await writeFile(path.join(t.dir, ROLE), edited);
    const types = path.join(t.dir, 'src/api/v1alpha1/alnairpod_types.ts');
    await writeFile(
      types,
      (await readFile(types, 'utf8')).replace(
        'replicas: s.integer({ minimum: 0 }),',
        'replicas: s.integer({ minimum: 1 }),',
      ),
    );
    const crdBefore = read(CRD);
    await assert.rejects(
      generate({ dir: t.dir }),
      /refusing to overwrite generated file\(s\) edited by hand: config\/rbac\/role\.yaml .*--force/,
    );
    assert.equal(read(ROLE), edited);
    assert.equal(read(CRD), crdBefore, 'nothing is written when one file is refused');
    const r = await generate({ dir: t.dir, force: true });
    assert.deepEqual(r.written.sort(), [CRD, ROLE]);
    assert.equal(stateOf(read(ROLE)), 'generated');
  });

  it('writes the webhook configurations, without caBundle (the manager injects it)', async () => {
    await createWebhook({
      group: 'alnair',
      version: 'v1alpha1',
      kind: 'AlnairPod',
      defaulting: true,
      programmaticValidation: true,
      dir: t.dir,
    });
    const r = await generate({ dir: t.dir });
    assert.deepEqual(r.written.sort(), [ROLE, WEBHOOKS]);
    const docs = read(WEBHOOKS)
      .split(/^---$/m)
      .map((d) => parse(d));
    assert.deepEqual(
      docs.map((d) => d.kind),
      ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    );
    const hook = docs[0].webhooks[0];
    assert.deepEqual(hook.clientConfig, {
      service: {
        name: 'my-operator-webhook-service',
        namespace: 'my-operator-system',
        path: '/mutate-alnair-example-com-v1alpha1-alnairpod',
        port: 443,
      },
    });
    assert.deepEqual(hook.rules, [
      {
        apiGroups: ['alnair.example.com'],
        apiVersions: ['v1alpha1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['alnairpods'],
      },
    ]);
    const role = parse(read(ROLE));
    assert.ok(role.rules.some((x: { resources: string[] }) => x.resources.includes('mutatingwebhookconfigurations')));
  });

  it('says what is missing when the project cannot be loaded', async () => {
    const bare = await tempDir();
    try {
      await init({ domain: 'example.com', repo: 'bare', dir: bare.dir });
      await assert.rejects(generate({ dir: bare.dir }), /tsx is not installed in .* \(run npm install\)/);
    } finally {
      await bare.remove();
    }
  });
});

describe('peerpods generate, a kind in two versions with a conversion webhook', () => {
  let t: Awaited<ReturnType<typeof tempDir>>;
  const read = (f: string) => readFileSync(path.join(t.dir, f), 'utf8');
  before(async () => {
    t = await tempDir();
    await init({ domain: 'example.com', repo: 'my-operator', dir: t.dir });
    await createApi({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', dir: t.dir });
    await createApi({ group: 'alnair', version: 'v1', kind: 'AlnairPod', dir: t.dir });
    await linkSources(t.dir);
  });
  after(() => t.remove());

  it('writes one CRD with both versions, stored in the one whose types say storage: true', async () => {
    await generate({ dir: t.dir });
    const crd = parse(read(CRD));
    assert.deepEqual(
      crd.spec.versions.map((v: { name: string; served: boolean; storage: boolean }) => [v.name, v.served, v.storage]),
      [
        ['v1', true, false],
        ['v1alpha1', true, true],
      ],
    );
    assert.equal(crd.spec.conversion, undefined);
  });

  it('adds spec.conversion calling the webhook Service at /convert, and the RBAC to inject the CA', async () => {
    await createWebhook({ group: 'alnair', version: 'v1alpha1', kind: 'AlnairPod', conversion: true, dir: t.dir });
    const r = await generate({ dir: t.dir });
    assert.deepEqual(r.written.sort(), [CRD, ROLE]);
    // What the CA injection fills in later is left out: clientConfig.caBundle.
    assert.deepEqual(parse(read(CRD)).spec.conversion, {
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          service: {
            name: 'my-operator-webhook-service',
            namespace: 'my-operator-system',
            path: '/convert',
            port: 443,
          },
        },
        conversionReviewVersions: ['v1'],
      },
    });
    assert.deepEqual(
      parse(read(ROLE)).rules.find((x: { resources: string[] }) => x.resources.includes('customresourcedefinitions')),
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['alnairpods.alnair.example.com'],
        verbs: ['get', 'patch'],
      },
    );
    const again = await generate({ dir: t.dir });
    assert.deepEqual(again.written, []);
  });

  it('refuses two storage versions, naming them', async () => {
    const v1 = path.join(t.dir, 'src/api/v1/alnairpod_types.ts');
    const text = await readFile(v1, 'utf8');
    await writeFile(v1, text.replace('storage: false,', 'storage: true,'));
    try {
      await assert.rejects(
        generate({ dir: t.dir }),
        /CRD alnairpods\.alnair\.example\.com needs exactly one storage version, has v1alpha1, v1: set storage: false on the others/,
      );
    } finally {
      await writeFile(v1, text);
    }
  });
});
