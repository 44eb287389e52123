// Test scaffolding for admission webhooks: HTTPS webhook servers with their own CA, a raw API
// client, and builders for webhook configurations.
import { createServer, request, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCa, issueServingCert } from '../../../src/apimachinery/index.ts';
import type { AdmissionRequest } from '../../../src/runtime/index.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';

export type Reply =
  | { response: Record<string, unknown> }
  /** Sent verbatim: for malformed answers. `{uid}` in the text is replaced by the request's uid. */
  | { raw: string; status?: number }
  /** Never answers (until the server closes). */
  | { hang: true };

export type HookHandler = (req: AdmissionRequest, path: string) => Reply | Promise<Reply>;

export interface HookServer {
  port: number;
  /** base64 PEM of the CA that signed the serving certificate. */
  caBundle: string;
  url(path: string): string;
  /** Every request received, in order. */
  requests: Array<{ path: string; request: AdmissionRequest }>;
  close(): Promise<void>;
}

/** One CA and serving certificate for all servers of a test file (RSA generation is the slow part). */
let certs: { caBundle: string; cert: string; key: string } | undefined;
function testCerts(): { caBundle: string; cert: string; key: string } {
  if (!certs) {
    const ca = createCa('webhook-test-ca');
    const serving = issueServingCert(ca, {
      commonName: 'webhook',
      dnsNames: ['localhost', 'hooks.webhooks.svc'],
      ips: ['127.0.0.1'],
    });
    certs = { caBundle: Buffer.from(ca.certPem).toString('base64'), cert: serving.certPem, key: serving.keyPem };
  }
  return certs;
}

/** A CA that signed nothing the servers present: a caBundle that must fail verification. */
export function foreignCaBundle(): string {
  return Buffer.from(createCa('someone-else').certPem).toString('base64');
}

export async function startHookServer(handler: HookHandler): Promise<HookServer> {
  const c = testCerts();
  const requests: HookServer['requests'] = [];
  const server: Server = createServer({ cert: c.cert, key: c.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      void (async () => {
        const path = new URL(req.url ?? '/', 'https://x').pathname;
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: AdmissionRequest };
        requests.push({ path, request: review.request });
        const reply = await handler(review.request, path);
        if ('hang' in reply) return;
        if ('raw' in reply) {
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
          res.end(reply.raw.replaceAll('{uid}', review.request.uid));
          return;
        }
        const body = JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review.request.uid, ...reply.response },
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: c.caBundle,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const allow = (extra: Record<string, unknown> = {}): Reply => ({ response: { allowed: true, ...extra } });

export const deny = (message: string, code = 403, reason?: string): Reply => ({
  response: { allowed: false, status: { code, message, ...(reason ? { reason } : {}) } },
});

export function patchReply(ops: unknown[], extra: Record<string, unknown> = {}): Reply {
  return {
    response: {
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
      ...extra,
    },
  };
}

export interface ApiResult {
  status: number;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** A raw request to the control plane, answered with the decoded JSON body. */
export function api(
  cp: TestCluster,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<ApiResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.url}${path}`,
      {
        method,
        ca: cp.caPem,
        headers: { authorization: `Bearer ${cp.token}`, 'content-type': contentType, accept: 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, headers: res.headers });
          } catch (e) {
            reject(new Error(`${method} ${path}: ${res.statusCode} ${text}: ${(e as Error).message}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export interface HookSpec {
  name: string;
  /** `clientConfig`; use {@link urlConfig} or a service reference. */
  clientConfig: Record<string, unknown>;
  rules?: Array<Record<string, unknown>>;
  failurePolicy?: 'Fail' | 'Ignore';
  sideEffects?: string;
  timeoutSeconds?: number;
  namespaceSelector?: Record<string, unknown>;
  objectSelector?: Record<string, unknown>;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  admissionReviewVersions?: string[];
}

export const podRules = (operations = ['CREATE', 'UPDATE']) => [
  { operations, apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] },
];

export function urlConfig(server: HookServer, path: string, caBundle = server.caBundle): Record<string, unknown> {
  return { url: server.url(path), caBundle };
}

function hookBody(h: HookSpec): Record<string, unknown> {
  return {
    rules: podRules(),
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...h,
  };
}

/** Creates a (Mutating|Validating)WebhookConfiguration; returns a function deleting it. */
export async function registerHooks(
  cp: TestCluster,
  kind: 'mutating' | 'validating',
  name: string,
  hooks: HookSpec[],
): Promise<() => Promise<void>> {
  const resource = kind === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  const path = `/apis/admissionregistration.k8s.io/v1/${resource}`;
  const r = await api(cp, 'POST', path, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: hooks.map(hookBody),
  });
  if (r.status !== 201) throw new Error(`registering ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return async () => {
    await api(cp, 'DELETE', `${path}/${name}`);
  };
}

let podCount = 0;
export function pod(labels: Record<string, string> = {}, name = `p${++podCount}`): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

/**
 * Writes a configuration straight into storage, bypassing validation: for settings v1 refuses on
 * create but old objects may still carry (sideEffects Some/Unknown).
 */
export function storeHooksDirectly(
  cp: TestCluster,
  kind: 'mutating' | 'validating',
  name: string,
  hooks: HookSpec[],
): () => void {
  const resource = kind === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  const key = `/admissionregistration.k8s.io/${resource}/${name}`;
  cp.internals.storage.create(key, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: hooks.map(hookBody) as never,
  });
  return () => {
    const stored = cp.internals.storage.get(key);
    if (stored) cp.internals.storage.delete(key, stored.revision);
  };
}

/** Requests the test's client caused (not those of the built-in scheduler and kubelets). */
export function fromClient(server: HookServer): HookServer['requests'] {
  return server.requests.filter((r) => r.request.userInfo.username === 'kubernetes-admin');
}
