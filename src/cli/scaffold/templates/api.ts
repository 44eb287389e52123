// The files of one kind: its types (spec and status schemas, the CRD), its controller with the
// rules it needs, a sample and a test — and the lines that register them.
import type { Insertion, NewFile } from '../files.ts';
import { camelOf } from '../names.ts';
import { fullGroup } from '../project.ts';
import type { ProjectFile, ResourceEntry } from '../project.ts';

export interface ApiNames {
  group: string;
  version: string;
  kind: string;
  plural: string;
  lower: string;
  camel: string;
  typesModule: string;
  controllerModule: string;
  rbacModule: string;
  sample: string;
}

export function apiNames(p: ProjectFile, r: ResourceEntry): ApiNames {
  const lower = r.kind.toLowerCase();
  return {
    group: fullGroup(p, r.group),
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    lower,
    camel: camelOf(r.kind),
    typesModule: `src/api/${r.version}/${lower}_types.ts`,
    controllerModule: `src/controller/${lower}_controller.ts`,
    rbacModule: `src/controller/${lower}_rbac.ts`,
    sample: `config/samples/${r.group}_${r.version}_${lower}.yaml`,
  };
}

/**
 * `laterVersion`: the kind has its types in another version already, which stays the storage
 * version (objects are stored in one version; moving `storage: true` is the author's decision).
 */
export function typesFiles(p: ProjectFile, r: ResourceEntry, laterVersion = false): NewFile[] {
  const n = apiNames(p, r);
  const storage = laterVersion
    ? `  // Another version of ${n.kind} is the storage version (the one with storage: true); this one is served
  // and converted to and from it.
  storage: false,`
    : `  // The version objects are stored in (kubebuilder's +kubebuilder:storageversion): exactly one version
  // of ${n.kind} says true.
  storage: true,`;
  return [
    {
      path: n.typesModule,
      content: `// ${n.kind} (${n.group}/${n.version}): edit the spec and status schemas, then \`npm run generate\`.
// The schema is the one source of the TypeScript type (Static<...>) and of the CRD's structural schema.
import { customResource, customResourceDefinition, s } from 'peerpods/runtime';
import type { KubeObject, Static } from 'peerpods/runtime';

export const ${n.kind}Spec = s.object({
  /** An example field: replace it with what a ${n.kind} asks for. */
  foo: s.string({ description: 'Foo is an example field of ${n.kind}.' }),
});
export type ${n.kind}Spec = Static<typeof ${n.kind}Spec>;

const Condition = s.object(
  {
    type: s.string(),
    status: s.enum(['True', 'False', 'Unknown'] as const),
    observedGeneration: s.integer({ minimum: 0 }),
    lastTransitionTime: s.dateTime(),
    reason: s.string(),
    message: s.string(),
  },
  // metav1.Condition's required fields, so the type is the runtime's Condition.
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

export const ${n.kind}Status = s.object({
  /** The generation the controller last acted on. */
  observedGeneration: s.integer({ minimum: 0 }),
  conditions: s.array(Condition, { listType: 'map', mapKeys: ['type'] }),
});
export type ${n.kind}Status = Static<typeof ${n.kind}Status>;

export interface ${n.kind} extends KubeObject {
  spec: ${n.kind}Spec;
  status?: ${n.kind}Status;
}

/** The resource, for the client and the informers. */
export const ${n.kind}s = customResource('${n.group}', '${n.version}', '${n.kind}', '${n.plural}', ${r.namespaced});

export const ${n.camel}Crd = customResourceDefinition({
  group: '${n.group}',
  version: '${n.version}',
  scope: '${r.namespaced ? 'Namespaced' : 'Cluster'}',
  names: { kind: '${n.kind}', plural: '${n.plural}', singular: '${n.lower}' },
${storage}
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  openAPIV3Schema: s.object(
    { apiVersion: s.string(), kind: s.string(), metadata: s.object({}), spec: ${n.kind}Spec, status: ${n.kind}Status },
    { required: ['spec'] },
  ).json,
});
`,
    },
    {
      path: n.sample,
      content: `apiVersion: ${n.group}/${n.version}
kind: ${n.kind}
metadata:
  name: ${n.lower}-sample
  labels:
    app.kubernetes.io/name: ${p.projectName}
    app.kubernetes.io/managed-by: kustomize
spec:
  foo: bar
`,
    },
  ];
}

/** The name a version's CRD definition is imported under in src/api/crds.ts (`laterVersion`: see typesFiles). */
export function crdImportName(n: ApiNames, laterVersion: boolean): string {
  return laterVersion ? `${n.camel}${n.version[0].toUpperCase()}${n.version.slice(1)}Crd` : `${n.camel}Crd`;
}

export function typesInsertions(p: ProjectFile, r: ResourceEntry, laterVersion = false): Insertion[] {
  const n = apiNames(p, r);
  const local = crdImportName(n, laterVersion);
  const imported = local === `${n.camel}Crd` ? local : `${n.camel}Crd as ${local}`;
  return [
    {
      path: 'src/api/crds.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { ${imported} } from './${n.version}/${n.lower}_types.ts';`],
    },
    { path: 'src/api/crds.ts', marker: '// +peerpods:scaffold:crds', lines: [`${local},`] },
    {
      path: 'config/crd/kustomization.yaml',
      marker: '# +peerpods:scaffold:crdkustomizeresource',
      lines: [`- bases/${n.group}_${n.plural}.yaml`],
    },
    {
      path: 'config/samples/kustomization.yaml',
      marker: '# +peerpods:scaffold:manifestskustomizesamples',
      lines: [`- ${n.sample.slice('config/samples/'.length)}`],
    },
  ];
}

export function controllerFiles(p: ProjectFile, r: ResourceEntry): NewFile[] {
  const n = apiNames(p, r);
  const types = `../api/${n.version}/${n.lower}_types.ts`;
  const child = r.namespaced;
  return [
    {
      path: n.controllerModule,
      content: `// The ${n.kind} controller: level-triggered. Each reconcile reads the ${n.kind}, makes the world match its
// spec, and reports what it did through the status subresource.
import {
  ${child ? 'ConfigMaps,\n  ' : ''}ControllerBuilder,
  ${child ? 'createOrPatch,\n  ' : ''}generationChanged,
  isNotFound,
  labelsChanged,
  or,
  patchStatus,
  ${child ? 'setControllerReference,\n  ' : ''}setStatusCondition,
} from 'peerpods/runtime';
import type { Controller, ${child ? 'KubeObject, ' : ''}Manager, ReconcileContext, Request } from 'peerpods/runtime';
import { ${n.kind}s } from '${types}';
import type { ${n.kind} } from '${types}';

export const ${n.camel.toUpperCase()}_CONTROLLER = '${n.lower}';
${
  child
    ? `
/** Label of every object this operator creates; the cache of those kinds is scoped to it. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': '${p.projectName}' };

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
`
    : ''
}
export function setup${n.kind}Controller(manager: Manager): Controller {
  return (
    new ControllerBuilder(manager, ${n.camel.toUpperCase()}_CONTROLLER)
      // Predicate: a status write or a change of annotations bumps no generation, so it does not
      // wake the controller; spec and label changes do.
      .for<${n.kind}>(${n.kind}s, { predicates: [or(generationChanged(), labelsChanged())] })${
        child
          ? `
      // Label-scoped cache: only this operator's ConfigMaps are listed and watched, not every
      // ConfigMap of the cluster. A change to one wakes its owner's reconcile.
      .owns(ConfigMaps, {
        scope: { labelSelector: Object.entries(MANAGED_BY).map(([k, v]) => \`\${k}=\${v}\`).join(',') },
      })`
          : ''
      }
      .complete((req, ctx) => reconcile${n.kind}(manager, req, ctx))
  );
}

export async function reconcile${n.kind}(manager: Manager, req: Request, ctx: ReconcileContext): Promise<void> {
  const client = manager.client;
  let obj: ${n.kind};
  try {
    obj = await client.get<${n.kind}>(${n.kind}s, req.name, req.namespace, { signal: ctx.signal });
  } catch (err) {
    // Deleted: what it owned is deleted by the garbage collector through the owner references.
    if (isNotFound(err)) return;
    throw err;
  }
  if (obj.metadata.deletionTimestamp) return;
${
  child
    ? `
  // What this ${n.kind} manages: a ConfigMap it owns (replace it with your kind's objects). The owner
  // reference makes the garbage collector delete it with the ${n.kind}, and lets .owns() map its
  // events back here. createOrPatch compares before writing, so an unchanged object is not rewritten.
  await createOrPatch<ConfigMap>(
    client,
    ConfigMaps,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: \`\${obj.metadata.name}-${n.lower}\`, namespace: obj.metadata.namespace, labels: { ...MANAGED_BY } },
    },
    (cm) => {
      setControllerReference(obj, cm);
      cm.data = { observedGeneration: String(obj.metadata.generation) };
    },
  );
`
    : ''
}
  // Status goes through the /status subresource (a merge patch of what changed), never the main
  // endpoint: spec writers and this controller cannot overwrite each other.
  await patchStatus(
    client,
    ${n.kind}s,
    obj,
    (draft) => {
      draft.status = { ...draft.status, observedGeneration: obj.metadata.generation };
      setStatusCondition(draft, {
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        message: 'the ${n.kind} is reconciled',
        observedGeneration: obj.metadata.generation,
      });
    },
    { fieldManager: '${p.projectName}', signal: ctx.signal },
  );
}
`,
    },
    {
      path: n.rbacModule,
      content: `// What the ${n.kind} controller needs (kubebuilder's +kubebuilder:rbac markers, as data): keep it next to
// the code that needs it; \`npm run generate\` writes it into config/rbac/role.yaml.
import type { PolicyRule } from 'peerpods/runtime';

export const ${n.camel}Rules: PolicyRule[] = [
  { apiGroups: ['${n.group}'], resources: ['${n.plural}'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['${n.group}'], resources: ['${n.plural}/status'], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['${n.group}'], resources: ['${n.plural}/finalizers'], verbs: ['update'] },${
    child
      ? `
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },`
      : ''
  }
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];
`,
    },
    {
      path: `test/${n.lower}_controller.test.ts`,
      content: controllerTest(p, r, n),
    },
  ];
}

function controllerTest(p: ProjectFile, r: ResourceEntry, n: ApiNames): string {
  const types = `../src/api/${n.version}/${n.lower}_types.ts`;
  const ns = r.namespaced ? `, namespace: 'default'` : '';
  return `// The ${n.kind} controller against an embedded control plane (peerpods/testing): the CRD installed from
// the types, the controller registered as main.ts registers it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Manager, findCondition } from 'peerpods/runtime';
import { startTestEnv } from 'peerpods/testing';
import type { TestEnv } from 'peerpods/testing';
import { crds } from '../src/api/crds.ts';
import { setupWithManager } from '../src/setup.ts';
import { ${n.kind}s } from '${types}';
import type { ${n.kind} } from '${types}';

let env: TestEnv;
let manager: Manager;
let running: Promise<void>;

before(async () => {
  env = await startTestEnv({ crds });
  manager = new Manager({ client: env.client, server: false, handleSignals: false });
  setupWithManager(manager);
  running = manager.start();
});

after(async () => {
  await manager?.stop();
  await running;
  await env?.stop();
});

test('a ${n.kind} gets a Ready condition for its generation, written through /status', async () => {
  const created = await env.client.create<${n.kind}>(${n.kind}s, {
    apiVersion: '${n.group}/${n.version}',
    kind: '${n.kind}',
    metadata: { name: 'test-${n.lower}'${ns} },
    spec: { foo: 'bar' },
  });
  const ready = await env.waitFor(
    async () => {
      const obj = await env.client.get<${n.kind}>(${n.kind}s, 'test-${n.lower}'${r.namespaced ? ", 'default'" : ''});
      return obj.status?.observedGeneration === created.metadata.generation ? obj : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.equal(findCondition(ready.status?.conditions, 'Ready')?.status, 'True');
  const statusWriter = ready.metadata.managedFields?.find((f) => f.manager === '${p.projectName}');
  assert.equal(statusWriter?.subresource, 'status');
});
`;
}

export function controllerInsertions(p: ProjectFile, r: ResourceEntry): Insertion[] {
  const n = apiNames(p, r);
  return [
    {
      path: 'src/setup.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { setup${n.kind}Controller } from './controller/${n.lower}_controller.ts';`],
    },
    {
      path: 'src/setup.ts',
      marker: '// +peerpods:scaffold:controllers',
      lines: [`setup${n.kind}Controller(manager);`],
    },
    {
      path: 'src/controller/rbac.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { ${n.camel}Rules } from './${n.lower}_rbac.ts';`],
    },
    { path: 'src/controller/rbac.ts', marker: '// +peerpods:scaffold:rules', lines: [`...${n.camel}Rules,`] },
  ];
}
