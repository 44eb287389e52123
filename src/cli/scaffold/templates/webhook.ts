// The files of a kind's admission webhooks: the defaulting and validation functions, the server
// wiring (once per project: the HTTPS server and its certificates, issued by the manager itself and
// injected into the webhook configurations, as peerpods' own PeerPodConfig controller does), the
// Service and RBAC they need, and a test.
import type { Insertion, NewFile } from '../files.ts';
import type { ProjectFile, ResourceEntry } from '../project.ts';
import { apiNames } from './api.ts';
import { names, namespaceOf } from './shared.ts';

export interface WebhookKinds {
  defaulting: boolean;
  validation: boolean;
}

export function webhookPath(p: ProjectFile, r: ResourceEntry, type: 'mutate' | 'validate'): string {
  const n = apiNames(p, r);
  return `/${type}-${n.group.replace(/\./g, '-')}-${n.version}-${n.lower}`;
}

export function webhookModule(r: ResourceEntry): string {
  return `src/webhook/${r.version}/${r.kind.toLowerCase()}_webhook.ts`;
}

export function kindWebhookFiles(p: ProjectFile, r: ResourceEntry, k: WebhookKinds): NewFile[] {
  const n = apiNames(p, r);
  const types = `../../api/${n.version}/${n.lower}_types.ts`;
  const runtimeImports = [
    ...(k.validation ? ['AdmissionDenied'] : []),
    ...(k.defaulting ? ['mutatingHandler'] : []),
    ...(k.validation ? ['validatingHandler'] : []),
  ];
  const body: string[] = [];
  if (k.defaulting) {
    body.push(`/** Defaulting: fills in what a ${n.kind} leaves out, before validation and storage. */
export function default${n.kind}(obj: ${n.kind}): ${n.kind} {
  obj.spec ??= {} as ${n.kind}['spec'];
  obj.spec.foo ??= 'default';
  return obj;
}
`);
  }
  if (k.validation) {
    body.push(`/**
 * Validation beyond the schema: throw AdmissionDenied to refuse, return warnings to admit with them.
 * \`old\` is set on updates.
 */
export function validate${n.kind}(obj: ${n.kind}, old?: ${n.kind}): string[] {
  if (obj.spec.foo === 'forbidden') throw new AdmissionDenied('spec.foo: Invalid value: "forbidden": pick another value');
  if (old && old.spec.foo !== obj.spec.foo) return [\`spec.foo changed from "\${old.spec.foo}" to "\${obj.spec.foo}"\`];
  return [];
}
`);
  }
  const registrations = [
    ...(k.defaulting
      ? [
          `  server.register<${n.kind}>('${webhookPath(p, r, 'mutate')}', mutatingHandler<${n.kind}>((obj) => default${n.kind}(obj)));`,
        ]
      : []),
    ...(k.validation
      ? [
          `  server.register<${n.kind}>(
    '${webhookPath(p, r, 'validate')}',
    validatingHandler<${n.kind}>((req) => validate${n.kind}(req.object as ${n.kind}, req.oldObject ?? undefined)),
  );`,
        ]
      : []),
  ];
  return [
    {
      path: webhookModule(r),
      content: `// Admission webhooks of ${n.kind} (${n.group}/${n.version}). Their paths and operations are declared in
// src/webhook/webhooks.ts, from which \`npm run generate\` writes config/webhook/manifests.yaml.
import { ${runtimeImports.join(', ')} } from 'peerpods/runtime';
import type { WebhookServer } from 'peerpods/runtime';
import type { ${n.kind} } from '${types}';

${body.join('\n')}
export function setup${n.kind}Webhook(server: WebhookServer): void {
${registrations.join('\n')}
}
`,
    },
    { path: `test/${n.lower}_webhook.test.ts`, content: webhookTest(p, r, k) },
  ];
}

function webhookTest(p: ProjectFile, r: ResourceEntry, k: WebhookKinds): string {
  const n = apiNames(p, r);
  const mod = `../src/webhook/${n.version}/${n.lower}_webhook.ts`;
  const imports = [...(k.defaulting ? [`default${n.kind}`] : []), ...(k.validation ? [`validate${n.kind}`] : [])];
  const sample = `{ apiVersion: '${n.group}/${n.version}', kind: '${n.kind}', metadata: { name: 'x' }, spec }`;
  const tests: string[] = [];
  if (k.defaulting) {
    tests.push(`test('defaulting fills in spec.foo and keeps a given value', () => {
  assert.equal(default${n.kind}(make({} as ${n.kind}['spec'])).spec.foo, 'default');
  assert.equal(default${n.kind}(make({ foo: 'mine' })).spec.foo, 'mine');
});
`);
  }
  if (k.validation) {
    tests.push(`test('validation refuses a forbidden spec.foo and warns about a change', () => {
  assert.throws(() => validate${n.kind}(make({ foo: 'forbidden' })), AdmissionDenied);
  assert.deepEqual(validate${n.kind}(make({ foo: 'a' })), []);
  assert.equal(validate${n.kind}(make({ foo: 'b' }), make({ foo: 'a' })).length, 1);
});
`);
  }
  return `// The ${n.kind} webhooks' decisions, as functions (what the HTTPS server calls on each AdmissionReview).
import assert from 'node:assert/strict';
import { test } from 'node:test';
${k.validation ? "import { AdmissionDenied } from 'peerpods/runtime';\n" : ''}import type { ${n.kind} } from '../src/api/${n.version}/${n.lower}_types.ts';
import { ${imports.join(', ')} } from '${mod}';

const make = (spec: ${n.kind}['spec']): ${n.kind} => (${sample});

${tests.join('\n')}`;
}

export function kindWebhookInsertions(p: ProjectFile, r: ResourceEntry, k: WebhookKinds): Insertion[] {
  const n = apiNames(p, r);
  const ops = `['CREATE', 'UPDATE']`;
  const decl = (type: 'mutating' | 'validating') =>
    `{ type: '${type}', path: '${webhookPath(p, r, type === 'mutating' ? 'mutate' : 'validate')}', group: '${n.group}', version: '${n.version}', resource: '${n.plural}', operations: ${ops} },`;
  return [
    {
      path: 'src/webhook/server.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { setup${n.kind}Webhook } from './${n.version}/${n.lower}_webhook.ts';`],
    },
    {
      path: 'src/webhook/server.ts',
      marker: '// +peerpods:scaffold:webhooks',
      lines: [`setup${n.kind}Webhook(server);`],
    },
    {
      path: 'src/webhook/webhooks.ts',
      marker: '// +peerpods:scaffold:webhooks',
      lines: [...(k.defaulting ? [decl('mutating')] : []), ...(k.validation ? [decl('validating')] : [])],
    },
  ];
}

/** The server wiring and manifests every webhook shares, made with the project's first webhook. */
export function serverFiles(p: ProjectFile): NewFile[] {
  const n = names(p);
  const ns = namespaceOf(p);
  return [
    { path: 'src/webhook/server.ts', content: serverTs(p) },
    { path: 'src/webhook/certificates.ts', content: certificatesTs(p) },
    {
      path: 'src/webhook/rbac.ts',
      content: `// What the webhook certificate manager needs cluster-wide: to write the caBundle of this operator's own
// webhook configurations (by name). Its Secret is covered by a Role in its namespace
// (config/rbac/webhook_certificate_role.yaml).
import type { PolicyRule } from 'peerpods/runtime';

export const webhookRules: PolicyRule[] = [
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
    resourceNames: ['${n.mutatingConfiguration}', '${n.validatingConfiguration}'],
    verbs: ['get', 'patch'],
  },
];
`,
    },
    {
      path: 'config/webhook/kustomization.yaml',
      content: `# manifests.yaml is written by \`npm run generate\` from src/webhook/webhooks.ts.\nresources:\n- manifests.yaml\n- service.yaml\n`,
    },
    {
      path: 'config/webhook/service.yaml',
      content: `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n.webhookService}\n  namespace: ${ns}\n  labels:\n    app.kubernetes.io/name: ${p.projectName}\n    app.kubernetes.io/managed-by: kustomize\nspec:\n  selector:\n    control-plane: controller-manager\n    app.kubernetes.io/name: ${p.projectName}\n  ports:\n  - port: 443\n    protocol: TCP\n    targetPort: 9443\n`,
    },
    {
      path: 'config/rbac/webhook_certificate_role.yaml',
      content: `# The webhook certificate manager keeps its CA and serving certificate in one Secret of its namespace.\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ${p.projectName}-webhook-certificate-role\n  namespace: ${ns}\n  labels:\n    app.kubernetes.io/name: ${p.projectName}\n    app.kubernetes.io/managed-by: kustomize\nrules:\n- apiGroups: [""]\n  resources: [secrets]\n  verbs: [create]\n- apiGroups: [""]\n  resources: [secrets]\n  resourceNames: [${n.webhookSecret}]\n  verbs: [get, update]\n`,
    },
    {
      path: 'config/rbac/webhook_certificate_role_binding.yaml',
      content: `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ${p.projectName}-webhook-certificate-rolebinding\n  namespace: ${ns}\n  labels:\n    app.kubernetes.io/name: ${p.projectName}\n    app.kubernetes.io/managed-by: kustomize\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: ${p.projectName}-webhook-certificate-role\nsubjects:\n- kind: ServiceAccount\n  name: ${n.serviceAccount}\n  namespace: ${ns}\n`,
    },
  ];
}

export function serverInsertions(): Insertion[] {
  return [
    {
      path: 'src/main.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { setupWebhookServer } from './webhook/server.ts';`],
    },
    {
      path: 'src/main.ts',
      marker: '// +peerpods:scaffold:webhook-server',
      lines: [
        `// ENABLE_WEBHOOKS=false (npm start) runs the controllers only: outside the cluster no Service reaches the server.`,
        `if (process.env.ENABLE_WEBHOOKS !== 'false') {`,
        `  await setupWebhookServer(manager, { bindAddress: bindAddress(flags['webhook-bind-address']), certDir: flags['webhook-cert-dir'] });`,
        `}`,
      ],
    },
    {
      path: 'src/controller/rbac.ts',
      marker: '// +peerpods:scaffold:imports',
      lines: [`import { webhookRules } from '../webhook/rbac.ts';`],
    },
    { path: 'src/controller/rbac.ts', marker: '// +peerpods:scaffold:rules', lines: ['...webhookRules,'] },
    {
      path: 'config/rbac/kustomization.yaml',
      marker: '# +peerpods:scaffold:rbacresources',
      lines: ['- webhook_certificate_role.yaml', '- webhook_certificate_role_binding.yaml'],
    },
    {
      path: 'config/default/kustomization.yaml',
      marker: '# +peerpods:scaffold:defaultresources',
      lines: ['- ../webhook'],
    },
  ];
}

function serverTs(p: ProjectFile): string {
  const n = names(p);
  return `// The admission webhook server: HTTPS on --webhook-bind-address, serving the certificate the
// certificate manager keeps in --webhook-cert-dir (reloaded when it changes). It runs on every
// replica: the API server may call any of them. \`peerpods create webhook\` registers its kinds here.
import { WebhookServer } from 'peerpods/runtime';
import type { Manager } from 'peerpods/runtime';
import { WebhookCertificates } from './certificates.ts';
// +peerpods:scaffold:imports

export interface WebhookServerSettings {
  bindAddress: { host: string; port: number };
  certDir: string;
  /** Namespace of the certificate Secret and the webhook Service. Default $POD_NAMESPACE, else ${namespaceOf(p)}. */
  namespace?: string;
}

export function registerWebhooks(server: WebhookServer): WebhookServer {
  // +peerpods:scaffold:webhooks
  return server;
}

export async function setupWebhookServer(manager: Manager, s: WebhookServerSettings): Promise<WebhookServer> {
  const namespace = s.namespace ?? process.env.POD_NAMESPACE ?? '${namespaceOf(p)}';
  const certificates = new WebhookCertificates(manager.client, {
    namespace,
    secretName: '${n.webhookSecret}',
    serviceName: '${n.webhookService}',
    certDir: s.certDir,
    configurations: { mutating: '${n.mutatingConfiguration}', validating: '${n.validatingConfiguration}' },
    // +peerpods:scaffold:conversioncrds
  });
  // The files must exist before the server starts.
  await certificates.ensure();
  manager.add(certificates);
  const server = registerWebhooks(
    new WebhookServer({ host: s.bindAddress.host, port: s.bindAddress.port, certDir: s.certDir, logger: manager.logger }),
  );
  manager.add(server);
  manager.addReadyCheck('webhook', server.startedChecker());
  return server;
}
`;
}

function certificatesTs(p: ProjectFile): string {
  return `// The webhook's CA and serving certificate, issued by the manager itself (no cert-manager needed), as
// peerpods' PeerPodConfig controller does for its own webhook: kept in one Secret (tls.crt, tls.key,
// ca.crt, ca.key), written to the server's certificate directory, and the CA injected as caBundle
// into this operator's webhook configurations and the CRDs it converts. Re-checked every hour; the
// serving certificate is re-issued by the same CA at 2/3 of its life, so the caBundle stays valid.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { certInfo, createCa, issueServingCert, renewAt, verifyPair } from 'peerpods/apimachinery';
import type { PemPair } from 'peerpods/apimachinery';
import {
  CustomResourceDefinitions,
  MutatingWebhookConfigurations,
  Secrets,
  ValidatingWebhookConfigurations,
  isConflict,
  isNotFound,
} from 'peerpods/runtime';
import type { KubeClient, KubeObject, ResourceType, Runnable } from 'peerpods/runtime';

export interface WebhookCertificateSettings {
  namespace: string;
  secretName: string;
  serviceName: string;
  certDir: string;
  configurations: { mutating: string; validating: string };
  /** CRDs whose conversion webhook this server is: their spec.conversion gets the caBundle too. */
  crds?: string[];
  /** Default 3 650 days (CA) and 365 days (serving certificate). */
  caValidityMs?: number;
  certValidityMs?: number;
}

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: Array<{ name: string; clientConfig: { caBundle?: string } }>;
}

interface CustomResourceDefinition extends KubeObject {
  spec: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } };
}

const DAY_MS = 86_400_000;
const CHECK_EVERY_MS = 3_600_000;
const RENEW_FRACTION = 2 / 3;
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string => (s ? Buffer.from(s, 'base64').toString('utf8') : '');

export class WebhookCertificates implements Runnable {
  readonly needLeaderElection = false;

  constructor(
    private readonly client: KubeClient,
    private readonly s: WebhookCertificateSettings,
  ) {}

  async start(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, CHECK_EVERY_MS);
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
      if (!signal.aborted) await this.ensure();
    }
  }

  /** Makes the Secret hold a valid CA and serving certificate, writes the files, injects the caBundle. */
  async ensure(now = Date.now()): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const { ca, serving } = await this.ensureSecret(now);
        await mkdir(this.s.certDir, { recursive: true });
        await writeFile(path.join(this.s.certDir, 'tls.crt'), serving.certPem);
        await writeFile(path.join(this.s.certDir, 'tls.key'), serving.keyPem, { mode: 0o600 });
        await this.injectCaBundle(b64(ca.certPem));
        return;
      } catch (err) {
        // Another replica wrote the Secret first: use what it wrote.
        if (!isConflict(err) || attempt >= 3) throw err;
      }
    }
  }

  private async ensureSecret(now: number): Promise<{ ca: PemPair; serving: PemPair }> {
    const { namespace, secretName, serviceName } = this.s;
    let live: Secret | undefined;
    try {
      live = await this.client.get<Secret>(Secrets, secretName, namespace);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const data = live?.data ?? {};
    let ca: PemPair = { certPem: unb64(data['ca.crt']), keyPem: unb64(data['ca.key']) };
    const caInfo = certInfo(ca.certPem);
    const freshCa = !caInfo || !ca.keyPem || now >= renewAt(caInfo, RENEW_FRACTION);
    if (freshCa) ca = createCa(\`\${serviceName}-ca.\${namespace}\`, { validMs: this.s.caValidityMs ?? 3650 * DAY_MS, now });

    const dnsNames = [serviceName, \`\${serviceName}.\${namespace}\`, \`\${serviceName}.\${namespace}.svc\`, \`\${serviceName}.\${namespace}.svc.cluster.local\`];
    let serving: PemPair = { certPem: unb64(data['tls.crt']), keyPem: unb64(data['tls.key']) };
    const info = certInfo(serving.certPem);
    const servingOk =
      !freshCa &&
      info !== undefined &&
      now < renewAt(info, RENEW_FRACTION) &&
      dnsNames.every((d) => info.dnsNames.includes(d)) &&
      verifyPair(ca.certPem, serving.certPem, serving.keyPem);
    if (servingOk) return { ca, serving };
    serving = issueServingCert(ca, { dnsNames, validMs: this.s.certValidityMs ?? 365 * DAY_MS, now });

    const secret: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretName,
        namespace,
        labels: { 'app.kubernetes.io/managed-by': '${p.projectName}' },
        ...(live ? { resourceVersion: live.metadata.resourceVersion } : {}),
      },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(serving.certPem), 'tls.key': b64(serving.keyPem), 'ca.crt': b64(ca.certPem), 'ca.key': b64(ca.keyPem) },
    };
    if (live) await this.client.update(Secrets, secret);
    else await this.client.create(Secrets, secret);
    return { ca, serving };
  }

  private async injectCaBundle(caBundle: string): Promise<void> {
    const targets: Array<[ResourceType, string]> = [
      [MutatingWebhookConfigurations, this.s.configurations.mutating],
      [ValidatingWebhookConfigurations, this.s.configurations.validating],
    ];
    for (const [type, name] of targets) {
      let live: WebhookConfiguration;
      try {
        live = await this.client.get<WebhookConfiguration>(type, name);
      } catch (err) {
        if (isNotFound(err)) continue; // not deployed (e.g. npm start, or no webhook of this type)
        throw err;
      }
      if ((live.webhooks ?? []).every((w) => w.clientConfig.caBundle === caBundle)) continue;
      const webhooks = (live.webhooks ?? []).map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle } }));
      await this.client.patch(type, name, undefined, { webhooks }, 'merge');
    }
    for (const name of this.s.crds ?? []) {
      let crd: CustomResourceDefinition;
      try {
        crd = await this.client.get<CustomResourceDefinition>(CustomResourceDefinitions, name);
      } catch (err) {
        if (isNotFound(err)) continue; // not installed yet
        throw err;
      }
      const conversion = crd.spec.conversion;
      if (conversion?.strategy !== 'Webhook' || conversion.webhook?.clientConfig?.caBundle === caBundle) continue;
      const patch = { spec: { conversion: { webhook: { clientConfig: { caBundle } } } } };
      await this.client.patch(CustomResourceDefinitions, name, undefined, patch, 'merge');
    }
  }
}
`;
}
