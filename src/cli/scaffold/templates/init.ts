// The files of a new operator project: kubebuilder's layout in TypeScript (src/main.ts for
// cmd/main.go, config/ kustomize layers, a PROJECT file), built on peerpods/runtime.
import type { NewFile } from '../files.ts';
import type { ProjectFile } from '../project.ts';
import { selfManifest, toolVersion } from '../self.ts';
import { withHeader } from '../generated-file.ts';
import { managerRole, toYaml } from '../manifests.ts';
import { GENERATED_HEADER_NOTE, namespaceOf, names } from './shared.ts';

export function initFiles(p: ProjectFile, owner: string | undefined): NewFile[] {
  return [
    { path: 'package.json', content: packageJson(p) },
    { path: 'tsconfig.json', content: tsconfig },
    { path: 'tsconfig.build.json', content: tsconfigBuild },
    { path: 'eslint.config.js', content: eslintConfig },
    { path: '.gitignore', content: 'node_modules/\ndist/\n*.kubeconfig\n' },
    { path: '.dockerignore', content: 'node_modules/\ndist/\ntest/\n.git/\n' },
    { path: 'Dockerfile', content: dockerfile },
    { path: 'README.md', content: readme(p) },
    {
      path: 'LICENSE.header',
      content: `Copyright ${new Date().getUTCFullYear()} ${owner ?? 'The ' + p.projectName + ' authors'}.\n`,
    },
    { path: 'src/main.ts', content: mainTs(p) },
    { path: 'src/setup.ts', content: setupTs },
    { path: 'src/api/crds.ts', content: crdsTs },
    { path: 'src/controller/rbac.ts', content: rbacTs },
    { path: 'src/webhook/webhooks.ts', content: webhooksTs },
    { path: 'test/manager.test.ts', content: managerTest },
    ...configFiles(p),
  ];
}

function packageJson(p: ProjectFile): string {
  const self = selfManifest();
  const manifest = {
    name: p.repo,
    version: '0.0.1',
    private: true,
    type: 'module',
    engines: { node: '>=20.11' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      test: 'node --import tsx --test --test-concurrency=1 test/*.test.ts',
      lint: 'eslint . && tsc -p tsconfig.json --noEmit',
      generate: 'peerpods generate',
      // Webhooks need the in-cluster Service; a manager run from here serves the controllers only.
      start: 'ENABLE_WEBHOOKS=false node --import tsx src/main.ts',
      // Not `install`/`uninstall`: npm runs a script named `install` on every `npm install`.
      'crds:install': 'peerpods install --kustomize config/crd',
      'crds:uninstall': 'peerpods uninstall --kustomize config/crd',
      deploy: 'peerpods deploy --kustomize config/default',
      undeploy: 'peerpods undeploy --kustomize config/default',
    },
    dependencies: { [self.name]: `^${self.version}` },
    devDependencies: {
      '@eslint/js': toolVersion('@eslint/js', '9.39.5'),
      '@types/node': toolVersion('@types/node', '20.19.43'),
      eslint: toolVersion('eslint', '9.39.5'),
      tsx: toolVersion('tsx', '4.23.15'),
      typescript: toolVersion('typescript', '5.9.3'),
      'typescript-eslint': toolVersion('typescript-eslint', '8.73.0'),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

const tsconfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "verbatimModuleSyntax": true,
    "rewriteRelativeImportExtensions": true,
    "skipLibCheck": true,
    "types": ["node"],
    "outDir": "dist",
    "sourceMap": true,
    "declaration": false,
    "noEmit": true
  },
  "include": ["src", "test"]
}
`;

const tsconfigBuild = `{
  "extends": "./tsconfig.json",
  "compilerOptions": { "noEmit": false, "rootDir": "src" },
  "include": ["src"]
}
`;

const eslintConfig = `// Lint set-up: ESLint's and typescript-eslint's recommended rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
);
`;

const dockerfile = `# Build in one stage, run the compiled JavaScript in a slim one (no TypeScript at run time).
FROM node:20-slim AS build
WORKDIR /workspace
COPY package*.json ./
RUN npm ci
COPY tsconfig*.json ./
COPY src/ src/
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
WORKDIR /app
COPY --from=build /workspace/package.json ./
COPY --from=build /workspace/node_modules/ node_modules/
COPY --from=build /workspace/dist/ dist/
USER 65532:65532
ENTRYPOINT ["node", "dist/main.js"]
`;

function mainTs(p: ProjectFile): string {
  return `// The operator's entry point (kubebuilder's cmd/main.go): flags, the manager with leader election,
// metrics and health probes, the controllers and webhooks of src/setup.ts, and a graceful stop on
// SIGTERM/SIGINT (the manager drains in-flight reconciles, then releases its Lease).
import { parseArgs } from 'node:util';
import { KubeClient, Manager, createLogger } from 'peerpods/runtime';
import { setupWithManager } from './setup.ts';
// +peerpods:scaffold:imports

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'leader-elect': { type: 'boolean', default: false },
    'leader-election-namespace': { type: 'string' },
    // One server answers /metrics, /healthz and /readyz. ":8081" listens on every address.
    'probe-bind-address': { type: 'string', default: '127.0.0.1:8081' },
    'webhook-bind-address': { type: 'string', default: ':9443' },
    'webhook-cert-dir': { type: 'string', default: '/tmp/k8s-webhook-server/serving-certs' },
  },
});

/** "host:port" → the two parts; an empty host means every address. */
export function bindAddress(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  const port = Number(value.slice(at + 1));
  if (at < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(\`invalid bind address "\${value}"\`);
  return { host: value.slice(0, at) || '0.0.0.0', port };
}

const log = createLogger('${p.projectName}');
// --kubeconfig, then $KUBECONFIG, the in-cluster service account, ~/.kube/config.
const client = await KubeClient.load(flags.kubeconfig ? { kubeconfigPath: flags.kubeconfig } : {});
const manager = new Manager({
  client,
  logger: log,
  server: bindAddress(flags['probe-bind-address']),
  leaderElection: flags['leader-elect']
    ? {
        leaseName: '${names(p).leaseName}',
        ...(flags['leader-election-namespace'] ? { namespace: flags['leader-election-namespace'] } : {}),
      }
    : false,
});
setupWithManager(manager);
// +peerpods:scaffold:webhook-server

log.info('starting manager');
await manager.start();
client.close();
`;
}

const setupTs = `// Every controller of this operator, registered on a manager: main.ts and the tests call this, so
// what is tested is what runs. \`peerpods create api\` adds its controllers here.
import type { Manager } from 'peerpods/runtime';
// +peerpods:scaffold:imports

export function setupWithManager(manager: Manager): Manager {
  // +peerpods:scaffold:controllers
  return manager;
}
`;

const crdsTs = `// Every CRD of this operator, built from the types in src/api/: \`npm run generate\` writes them to
// config/crd/bases, and the tests install them. \`peerpods create api\` adds its kinds here; the
// versions of one kind are merged into one CRD.
import { mergeCrdVersions } from 'peerpods/runtime';
import type { KubeObject } from 'peerpods/runtime';
// +peerpods:scaffold:imports

export const crds: KubeObject[] = mergeCrdVersions([
  // +peerpods:scaffold:crds
]);
`;

const rbacTs = `// The rules of the manager's ClusterRole (kubebuilder's +kubebuilder:rbac markers, as data): each
// controller declares what it needs beside its code, and \`npm run generate\` writes
// config/rbac/role.yaml from this list.
import type { PolicyRule } from 'peerpods/runtime';
// +peerpods:scaffold:imports

export const rules: PolicyRule[] = [
  // +peerpods:scaffold:rules
];
`;

const webhooksTs = `// The admission webhooks of this operator, as \`npm run generate\` writes them into
// config/webhook/manifests.yaml. \`peerpods create webhook\` adds entries here.
// +peerpods:scaffold:imports

export interface WebhookDeclaration {
  type: 'mutating' | 'validating';
  /** The server path, e.g. /mutate-ship-example-com-v1-frigate. */
  path: string;
  group: string;
  version: string;
  resource: string;
  operations: Array<'CREATE' | 'UPDATE' | 'DELETE'>;
}

export const webhooks: WebhookDeclaration[] = [
  // +peerpods:scaffold:webhooks
];
`;

const managerTest = `// The manager as main.ts builds it, against an embedded control plane (peerpods/testing): its
// controllers start and it reports ready.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Manager } from 'peerpods/runtime';
import { startTestEnv } from 'peerpods/testing';
import type { TestEnv } from 'peerpods/testing';
import { crds } from '../src/api/crds.ts';
import { setupWithManager } from '../src/setup.ts';

let env: TestEnv;
let manager: Manager;
let running: Promise<void>;

before(async () => {
  env = await startTestEnv({ crds });
  manager = new Manager({ client: env.client, server: { host: '127.0.0.1', port: 0 }, handleSignals: false });
  setupWithManager(manager);
  running = manager.start();
});

after(async () => {
  await manager?.stop();
  await running;
  await env?.stop();
});

test('the manager serves /readyz once its controllers started', async () => {
  const { port } = await manager.serverAddress();
  await env.waitFor(async () => (await fetch(\`http://127.0.0.1:\${port}/readyz\`)).ok, { timeoutMs: 30_000 });
  const metrics = await (await fetch(\`http://127.0.0.1:\${port}/metrics\`)).text();
  assert.match(metrics, /rest_client_requests_total/);
});
`;

function readme(p: ProjectFile): string {
  return `# ${p.repo}

A Kubernetes operator built with [peerpods](https://www.npmjs.com/package/peerpods)'s runtime, scaffolded by
\`peerpods init --domain ${p.domain} --repo ${p.repo}\`.

## Workflow

\`\`\`sh
npm install
peerpods create api --group ship --version v1 --kind Frigate   # types, controller, RBAC, sample, test
# edit src/api/v1/frigate_types.ts (spec and status) and src/controller/frigate_controller.ts (reconcile)
npm run generate          # config/crd/bases and config/rbac/role.yaml from the types and RBAC declarations
npm test                  # controller tests against an embedded control plane (peerpods/testing)
npx peerpods cluster start --nodes 1 &            # or any cluster in your kubeconfig
export KUBECONFIG=$PWD/.peerpods/kubeconfig
npm run crds:install      # apply config/crd (kubebuilder's make install)
npm start                 # run the manager here against the cluster (make run)
kubectl apply -k config/samples
npm run build             # compile to dist/; the Dockerfile runs dist/main.js
npm run deploy            # config/default: CRDs, RBAC, the manager Deployment (make deploy); undeploy removes it
peerpods create webhook --group ship --version v1 --kind Frigate --defaulting --programmatic-validation
\`\`\`

The npm scripts are kubebuilder's make targets: \`generate\` = \`make manifests\`, \`crds:install\`/\`crds:uninstall\`
= \`make install\`/\`uninstall\` (npm would run a script named \`install\` on every \`npm install\`), \`deploy\`/\`undeploy\`,
\`start\` = \`make run\`, plus \`build\`, \`test\` and \`lint\`.

## Layout

- \`src/main.ts\`: flags, the manager (leader election with \`--leader-elect\`, \`/metrics\`, \`/healthz\`, \`/readyz\` on
  \`--probe-bind-address\`), graceful shutdown on SIGTERM.
- \`src/setup.ts\`: registers every controller; main.ts and the tests share it.
- \`src/api/<version>/<kind>_types.ts\`: spec and status as schemas (\`s\` from \`peerpods/runtime\`): one source for
  the TypeScript type (\`Static<typeof Spec>\`) and the CRD's structural schema. \`src/api/crds.ts\` lists the CRDs.
- \`src/controller/<kind>_controller.ts\` and \`<kind>_rbac.ts\`: the reconciler and the rules it needs;
  \`src/controller/rbac.ts\` collects them.
- \`src/webhook/\`: admission webhooks (\`peerpods create webhook\`).
- \`config/\`: kustomize layers — \`crd\`, \`rbac\`, \`manager\`, \`samples\`, \`prometheus\` (a ServiceMonitor),
  \`webhook\`, and \`default\` which combines them (\`kubectl apply -k config/default\` works as well).

## How \`generate\` reads the TypeScript

\`peerpods generate\` imports \`src/api/crds.ts\`, \`src/controller/rbac.ts\` and \`src/webhook/webhooks.ts\` straight from
the sources through this project's \`tsx\` (a dev dependency), so it needs no build first and always sees the code
as it is on disk. The files it writes start with a \`# Code generated by peerpods generate\` line carrying a hash
of their content: ${GENERATED_HEADER_NOTE}
`;
}

function configFiles(p: ProjectFile): NewFile[] {
  const n = names(p);
  const ns = namespaceOf(p);
  const labels = `    app.kubernetes.io/name: ${p.projectName}\n    app.kubernetes.io/managed-by: kustomize`;
  return [
    {
      path: 'config/crd/kustomization.yaml',
      content: `# The CRDs \`npm run generate\` writes to bases/.\nresources:\n# +peerpods:scaffold:crdkustomizeresource\n`,
    },
    {
      path: 'config/rbac/kustomization.yaml',
      content: `resources:\n- service_account.yaml\n- role.yaml\n- role_binding.yaml\n- leader_election_role.yaml\n- leader_election_role_binding.yaml\n# +peerpods:scaffold:rbacresources\n`,
    },
    {
      path: 'config/rbac/service_account.yaml',
      content: `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${n.serviceAccount}\n  namespace: ${ns}\n  labels:\n${labels}\n`,
    },
    // Generated (with its hash header) so that `npm run generate` may replace it.
    { path: 'config/rbac/role.yaml', content: withHeader(toYaml(managerRole(p, []))) },
    {
      path: 'config/rbac/role_binding.yaml',
      content: `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${n.managerRole}binding\n  labels:\n${labels}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: ${n.managerRole}\nsubjects:\n- kind: ServiceAccount\n  name: ${n.serviceAccount}\n  namespace: ${ns}\n`,
    },
    {
      path: 'config/rbac/leader_election_role.yaml',
      content: `# The manager's Lease (--leader-elect) and the events it records.\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ${p.projectName}-leader-election-role\n  namespace: ${ns}\n  labels:\n${labels}\nrules:\n- apiGroups: [coordination.k8s.io]\n  resources: [leases]\n  verbs: [create]\n- apiGroups: [coordination.k8s.io]\n  resources: [leases]\n  resourceNames: [${n.leaseName}]\n  verbs: [get, update]\n- apiGroups: [""]\n  resources: [events]\n  verbs: [create, patch]\n`,
    },
    {
      path: 'config/rbac/leader_election_role_binding.yaml',
      content: `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ${p.projectName}-leader-election-rolebinding\n  namespace: ${ns}\n  labels:\n${labels}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: ${p.projectName}-leader-election-role\nsubjects:\n- kind: ServiceAccount\n  name: ${n.serviceAccount}\n  namespace: ${ns}\n`,
    },
    {
      path: 'config/manager/kustomization.yaml',
      content: `resources:\n- manager.yaml\n- metrics_service.yaml\n`,
    },
    { path: 'config/manager/manager.yaml', content: managerYaml(p) },
    {
      path: 'config/manager/metrics_service.yaml',
      content: `# /metrics, /healthz and /readyz are served on one port.\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${n.metricsService}\n  namespace: ${ns}\n  labels:\n${labels}\n    control-plane: controller-manager\nspec:\n  selector:\n    control-plane: controller-manager\n    app.kubernetes.io/name: ${p.projectName}\n  ports:\n  - name: metrics\n    port: 8081\n    targetPort: 8081\n`,
    },
    {
      path: 'config/samples/kustomization.yaml',
      content: `# One sample custom resource per kind (\`kubectl apply -k config/samples\`).\nresources:\n# +peerpods:scaffold:manifestskustomizesamples\n`,
    },
    {
      path: 'config/prometheus/kustomization.yaml',
      content: `# Not in config/default: needs the Prometheus operator's ServiceMonitor CRD.\nresources:\n- monitor.yaml\n`,
    },
    {
      path: 'config/prometheus/monitor.yaml',
      content: `apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: ${p.projectName}-controller-manager-metrics-monitor\n  namespace: ${ns}\n  labels:\n${labels}\n    control-plane: controller-manager\nspec:\n  endpoints:\n  - path: /metrics\n    port: metrics\n    scheme: http\n  selector:\n    matchLabels:\n      control-plane: controller-manager\n      app.kubernetes.io/name: ${p.projectName}\n`,
    },
    {
      path: 'config/default/kustomization.yaml',
      content: `# Everything \`npm run deploy\` applies. Objects carry their namespace (${ns}) themselves, so this\n# layer needs no transformers and reads the same with kubectl apply -k and peerpods deploy --kustomize.\nresources:\n- ../crd\n- ../rbac\n- ../manager\n# +peerpods:scaffold:defaultresources\n`,
    },
  ];
}

function managerYaml(p: ProjectFile): string {
  const n = names(p);
  const ns = namespaceOf(p);
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
  labels:
    app.kubernetes.io/name: ${p.projectName}
    app.kubernetes.io/managed-by: kustomize
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${n.deployment}
  namespace: ${ns}
  labels:
    control-plane: controller-manager
    app.kubernetes.io/name: ${p.projectName}
    app.kubernetes.io/managed-by: kustomize
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-manager
      app.kubernetes.io/name: ${p.projectName}
  template:
    metadata:
      labels:
        control-plane: controller-manager
        app.kubernetes.io/name: ${p.projectName}
    spec:
      serviceAccountName: ${n.serviceAccount}
      terminationGracePeriodSeconds: 40
      securityContext:
        runAsNonRoot: true
      containers:
      - name: manager
        image: ${p.projectName}:latest
        args:
        - --leader-elect
        - --leader-election-namespace=${ns}
        - --probe-bind-address=:8081
        env:
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        ports:
        - name: metrics
          containerPort: 8081
        - name: webhook-server
          containerPort: 9443
        volumeMounts:
        # The root filesystem is read-only; webhook serving certificates are written here.
        - name: tmp
          mountPath: /tmp
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8081
          initialDelaySeconds: 15
          periodSeconds: 20
        readinessProbe:
          httpGet:
            path: /readyz
            port: 8081
          initialDelaySeconds: 5
          periodSeconds: 10
        resources:
          requests:
            cpu: 10m
            memory: 64Mi
          limits:
            cpu: 500m
            memory: 256Mi
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: [ALL]
      volumes:
      - name: tmp
        emptyDir: {}
`;
}
