// The files of a kind's conversion webhook, in kubebuilder's layout: the hub marker beside the
// storage version's types, convertTo/convertFrom beside each other version's, the project's
// ConversionScheme served at /convert, and a test that writes in one version and reads in another.
import type { Insertion, NewFile } from '../files.ts';
import type { ProjectFile, ResourceEntry } from '../project.ts';
import { apiNames } from './api.ts';
import type { ApiNames } from './api.ts';
import { CONVERSION_PATH } from './shared.ts';

export const CONVERSION_MODULE = 'src/webhook/conversion.ts';

const upper = (v: string): string => v[0].toUpperCase() + v.slice(1);

export function conversionModule(r: ResourceEntry): string {
  return `src/api/${r.version}/${r.kind.toLowerCase()}_conversion.ts`;
}

/** The names a version's conversion exports, and what crds.ts-style imports call them. */
function conversionNames(n: ApiNames) {
  const v = upper(n.version);
  return {
    hub: `${n.camel}Hub`,
    spoke: `${n.camel}${v}Conversion`,
    type: `${n.kind}s${v}`,
  };
}

/** src/webhook/conversion.ts, made with the project's first conversion webhook. */
export function conversionSchemeFile(): NewFile {
  return {
    path: CONVERSION_MODULE,
    content: `// The conversion webhook: every kind served in several versions registers its hub (the storage
// version) and its spokes here (\`peerpods create webhook --conversion\`), and the webhook server
// answers the API server's ConversionReviews with them at ${CONVERSION_PATH}.
import { ConversionScheme } from 'peerpods/runtime';
import type { PolicyRule } from 'peerpods/runtime';
// +peerpods:scaffold:imports

export const conversions = new ConversionScheme();
// +peerpods:scaffold:conversions

/** The CRDs whose spec.conversion calls this webhook: the certificate manager injects its CA into them. */
export const conversionCrds: string[] = [
  // +peerpods:scaffold:conversioncrds
];

/** What injecting the CA needs: to read and patch those CRDs, and no others. */
export const conversionRules: PolicyRule[] = [
  {
    apiGroups: ['apiextensions.k8s.io'],
    resources: ['customresourcedefinitions'],
    resourceNames: conversionCrds,
    verbs: ['get', 'patch'],
  },
];
`,
  };
}

/** The lines that serve the scheme and give the certificate manager its CRDs, with the first conversion. */
export function conversionSchemeInsertions(): Insertion[] {
  return [
    {
      path: 'src/webhook/server.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [
        `import { conversionWebhook } from 'peerpods/runtime';`,
        `import { conversionCrds, conversions } from './conversion.ts';`,
      ],
    },
    {
      path: 'src/webhook/server.ts',
      marker: '// +peerpods:scaffold:webhooks',
      lines: [`server.register('${CONVERSION_PATH}', conversionWebhook(conversions));`],
    },
    {
      path: 'src/webhook/server.ts',
      marker: '// +peerpods:scaffold:conversioncrds',
      lines: ['crds: conversionCrds,'],
    },
    {
      path: 'src/controller/rbac.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { conversionRules } from '../webhook/conversion.ts';`],
    },
    { path: 'src/controller/rbac.ts', marker: '// +peerpods:scaffold:rules', lines: ['...conversionRules,'] },
  ];
}

/** The hub marker, each spoke's conversion functions, and the test. */
export function kindConversionFiles(p: ProjectFile, hub: ResourceEntry, spokes: ResourceEntry[]): NewFile[] {
  const h = apiNames(p, hub);
  const files: NewFile[] = [
    {
      path: conversionModule(hub),
      content: `// ${h.kind} ${h.version} is the hub of ${h.kind}'s conversions (controller-runtime's conversion.Hub): it is
// the storage version, and every other version converts to and from it, so each new version needs
// one pair of functions, not one per other version. Keep it on the version with storage: true.
import { ${h.kind}s } from './${h.lower}_types.ts';

export const ${conversionNames(h).hub} = ${h.kind}s;
`,
    },
  ];
  for (const spoke of spokes) {
    const n = apiNames(p, spoke);
    files.push({
      path: conversionModule(spoke),
      content: `// ${n.kind} ${n.version} ⇄ ${h.version} (the hub): what the conversion webhook runs when an object is read
// or written in a version other than the one it is stored in. The API server keeps the metadata and
// prunes fields the target's schema does not have; the scheme sets apiVersion and kind.
import type { Convertible } from 'peerpods/runtime';
import type { ${h.kind} as Hub } from '../${h.version}/${h.lower}_types.ts';
import type { ${n.kind} } from './${n.lower}_types.ts';

export const ${conversionNames(n).spoke}: Convertible<${n.kind}, Hub> = {
  // ${n.version} → ${h.version}. Fields with the same name and shape in both versions are copied.
  // TODO: a field renamed or reshaped between the versions is converted here (and TypeScript says
  // so when the types stop matching), e.g. spec: { ...spec, replicas: spec.size }.
  convertTo: ({ spec, status, ...rest }) => ({
    ...rest,
    spec: { ...spec },
    ...(status ? { status: { ...status } } : {}),
  }),
  // ${h.version} → ${n.version}: the reverse of convertTo, so an object survives the round trip.
  convertFrom: ({ spec, status, ...rest }) => ({
    ...rest,
    spec: { ...spec },
    ...(status ? { status: { ...status } } : {}),
  }),
};
`,
    });
  }
  files.push({ path: `test/${h.lower}_conversion.test.ts`, content: conversionTest(p, hub, spokes) });
  return files;
}

export function kindConversionInsertions(p: ProjectFile, hub: ResourceEntry, spokes: ResourceEntry[]): Insertion[] {
  const h = apiNames(p, hub);
  const imports = [`import { ${conversionNames(h).hub} } from '../api/${h.version}/${h.lower}_conversion.ts';`];
  const chain = [`conversions.hub(${conversionNames(h).hub})`];
  for (const spoke of spokes) {
    const n = apiNames(p, spoke);
    const c = conversionNames(n);
    imports.push(
      `import { ${n.kind}s as ${c.type} } from '../api/${n.version}/${n.lower}_types.ts';`,
      `import { ${c.spoke} } from '../api/${n.version}/${n.lower}_conversion.ts';`,
    );
    chain.push(`  .spoke(${c.type}, ${c.spoke})`);
  }
  return [
    { path: CONVERSION_MODULE, marker: '// +peerpods:scaffold:imports', lines: imports },
    { path: CONVERSION_MODULE, marker: '// +peerpods:scaffold:conversions', lines: [`${chain.join('\n')};`] },
    { path: CONVERSION_MODULE, marker: '// +peerpods:scaffold:conversioncrds', lines: [`'${h.plural}.${h.group}',`] },
  ];
}

function conversionTest(p: ProjectFile, hub: ResourceEntry, spokes: ResourceEntry[]): string {
  const h = apiNames(p, hub);
  const versions = [hub, ...spokes].map((r) => apiNames(p, r));
  const ns = hub.namespaced ? `, namespace: 'default'` : '';
  const nsArg = hub.namespaced ? `, 'default'` : '';
  const imports = versions
    .map(
      (n) => `import { ${n.kind}s as ${conversionNames(n).type} } from '../src/api/${n.version}/${n.lower}_types.ts';`,
    )
    .join('\n');
  const list = versions.map((n) => conversionNames(n).type).join(', ');
  return `// ${h.kind}'s conversion webhook against an embedded control plane (peerpods/testing): the CRD from
// config/crd/bases (run \`npm run generate\` first) with its conversion webhook pointed at this test's
// server, which serves what src/webhook/server.ts registers. An object written in one version reads
// back in every other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CustomResourceDefinitions, Manager, WebhookServer } from 'peerpods/runtime';
import type { KubeObject } from 'peerpods/runtime';
import { startTestEnv } from 'peerpods/testing';
import type { TestEnv } from 'peerpods/testing';
import { registerWebhooks } from '../src/webhook/server.ts';
${imports}

const versions = [${list}];
let env: TestEnv;
// Only for its metrics registry, where the webhook server counts the reviews it answered.
let manager: Manager;
const stop = new AbortController();
let serving: Promise<void>;

before(async () => {
  env = await startTestEnv({ crds: ['config/crd/bases'], webhooks: {} });
  manager = new Manager({ client: env.client, server: false, handleSignals: false });
  const server = registerWebhooks(
    new WebhookServer({ ...env.webhook!.serverOptions, metricsRegistry: manager.metricsRegistry }),
  );
  serving = server.start(stop.signal);
  await server.address();
});

after(async () => {
  stop.abort();
  await serving;
  await env?.stop();
});

test('the ${h.kind} CRD converts through this operator\\'s webhook', async () => {
  const crd = await env.client.get<KubeObject & { spec: { conversion?: { strategy?: string } } }>(
    CustomResourceDefinitions,
    '${h.plural}.${h.group}',
  );
  const hint = 'config/crd/bases has no conversion webhook: run npm run generate';
  assert.equal(crd.spec.conversion?.strategy, 'Webhook', hint);
});

test('${h.kind} objects written in one version read back in every other', async () => {
  for (const from of versions) {
    const name = \`conversion-\${from.version}\`;
    await env.client.create(from, {
      apiVersion: \`\${from.group}/\${from.version}\`,
      kind: '${h.kind}',
      metadata: { name${ns}, labels: { written: from.version } },
      spec: { foo: 'bar' },
    });
    for (const to of versions) {
      const read = await env.client.get<KubeObject & { spec: { foo?: string } }>(to, name${nsArg});
      assert.equal(read.apiVersion, \`\${to.group}/\${to.version}\`);
      assert.equal(read.metadata.labels?.written, from.version);
      assert.equal(read.spec.foo, 'bar');
    }
    const listed = await env.client.list(versions.find((v) => v !== from)!${nsArg === '' ? '' : `, { namespace: 'default' }`});
    assert.ok(listed.items.some((o) => o.metadata.name === name));
  }
  const metrics = await manager.metricsRegistry.metrics();
  assert.match(metrics, /controller_runtime_webhook_requests_total\\{webhook="\\/convert",code="200"\\} [1-9]/);
});
`;
}
