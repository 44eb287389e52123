// envtest's WebhookInstallOptions, done here: the environment issues a serving certificate for a
// loopback webhook server the test runs, picks its port, and rewrites each webhook configuration
// to call that server by URL with the CA in caBundle, so manifests written for a Service (kubebuilder's
// config/webhook/manifests.yaml) work unchanged against the embedded API server. CRDs with a
// conversion webhook are pointed at the same server (envtest's ModifyConversionWebhooks).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createCa, issueServingCert, type KubeObject } from '../apimachinery/index.ts';
import type { WebhookServerOptions } from '../runtime/index.ts';
import { readManifests, type ManifestSource } from './manifests.ts';

export const WEBHOOK_CONFIGURATION_KINDS = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

export interface WebhookInstallOptions {
  /**
   * MutatingWebhookConfiguration and ValidatingWebhookConfiguration objects, or paths of YAML files
   * or directories holding them (other kinds there are skipped). Installed before startTestEnv returns.
   */
  configurations?: ManifestSource[];
  /** Port the test's webhook server will listen on. Default: a free one, picked now. */
  port?: number;
}

/** Where the test's webhook server listens and what it serves with. */
export interface WebhookServing {
  /** Always 127.0.0.1: the webhook server is never exposed. */
  host: string;
  port: number;
  /** Holds tls.crt and tls.key, as controller-runtime's webhook server expects. */
  certDir: string;
  certFile: string;
  keyFile: string;
  /** The CA that signed the serving certificate (what caBundle carries). */
  caPem: string;
  /** Options for the runtime's WebhookServer: `new WebhookServer(env.webhook.serverOptions)`. */
  serverOptions: WebhookServerOptions;
  /** The URL the API server calls for `path`. */
  url(path: string): string;
}

const HOST = '127.0.0.1';

/** Issues the serving certificate into `<dir>/webhook-certs` and settles the port. */
export async function prepareWebhookServing(dir: string, port: number | undefined): Promise<WebhookServing> {
  const certDir = join(dir, 'webhook-certs');
  mkdirSync(certDir, { mode: 0o700 });
  const ca = createCa('peerpods-testing-webhook-ca');
  const serving = issueServingCert(ca, { dnsNames: ['localhost'], ips: [HOST] });
  const certFile = join(certDir, 'tls.crt');
  const keyFile = join(certDir, 'tls.key');
  writeFileSync(certFile, serving.certPem);
  writeFileSync(keyFile, serving.keyPem, { mode: 0o600 });
  writeFileSync(join(certDir, 'ca.crt'), ca.certPem);
  const chosen = port ?? (await freePort());
  return {
    host: HOST,
    port: chosen,
    certDir,
    certFile,
    keyFile,
    caPem: ca.certPem,
    serverOptions: { host: HOST, port: chosen, certDir },
    url: (path) => `https://${HOST}:${chosen}${path.startsWith('/') ? path : `/${path}`}`,
  };
}

/** The configurations in `sources`, each webhook pointed at the test's server with the CA as caBundle. */
export function webhookConfigurations(sources: readonly ManifestSource[], serving: WebhookServing): KubeObject[] {
  const caBundle = Buffer.from(serving.caPem).toString('base64');
  return readManifests(sources, WEBHOOK_CONFIGURATION_KINDS).map((cfg) => ({
    ...cfg,
    webhooks: ((cfg.webhooks as Array<Record<string, unknown>> | undefined) ?? []).map((hook) => ({
      ...hook,
      clientConfig: clientConfig(hook.clientConfig as ClientConfig | undefined, serving, caBundle),
    })),
  }));
}

interface ConversionSpec {
  strategy?: string;
  webhook?: { clientConfig?: ClientConfig; [key: string]: unknown };
}

/**
 * The CRD with its conversion webhook (strategy Webhook) calling the test's server at the same path
 * (default /convert, controller-runtime's), the CA as caBundle; a CRD without one is returned as is.
 */
export function withConversionWebhook(crd: KubeObject, serving: WebhookServing): KubeObject {
  const spec = crd.spec as { conversion?: ConversionSpec } | undefined;
  const conversion = spec?.conversion;
  if (conversion?.strategy !== 'Webhook') return crd;
  const caBundle = Buffer.from(serving.caPem).toString('base64');
  const cc = conversion.webhook?.clientConfig;
  const clientConfig = cc?.url
    ? { url: cc.url, caBundle }
    : { url: serving.url(cc?.service?.path ?? '/convert'), caBundle };
  return {
    ...crd,
    spec: { ...spec, conversion: { ...conversion, webhook: { ...conversion.webhook, clientConfig } } },
  };
}

interface ClientConfig {
  url?: string;
  service?: { path?: string };
}

/** A Service reference becomes the test server's URL at the same path; a URL is kept, as envtest keeps it. */
function clientConfig(cc: ClientConfig | undefined, serving: WebhookServing, caBundle: string): object {
  if (cc?.url) return { url: cc.url, caBundle };
  return { url: serving.url(cc?.service?.path ?? '/'), caBundle };
}

/** A port nothing listens on now (the test's server binds it a moment later, as envtest does). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
