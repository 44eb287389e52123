// Raw HTTPS requests to a test cluster with its CA and bearer token, for the tests that look at
// the exact bytes kube-apiserver would send (status codes, Status bodies).
import { request } from 'node:https';
import type { JsonObject } from '../../src/apimachinery/index.ts';
import { eventually, type TestCluster } from './control-plane.ts';

export interface Reply {
  code: number;
  json: JsonObject;
  text: string;
}

/** One HTTPS request with the cluster's token; the body is sent as JSON unless a Buffer. */
export function call(
  cp: TestCluster,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.url}${path}`,
      {
        method,
        ca: cp.caPem,
        headers: {
          Authorization: `Bearer ${cp.token}`,
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: JsonObject = {};
          try {
            json = JSON.parse(text) as JsonObject;
          } catch {
            // not JSON; callers look at text
          }
          resolve({ code: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no response in 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Waits for the root CA publisher's `kube-root-ca.crt` in a namespace, as kube's e2e framework does
 * for every namespace it makes (WaitForKubeRootCAInNamespace, test/e2e/framework/util.go), so tests
 * that list or watch a namespace's ConfigMaps know it is there.
 */
export async function rootCaPublished(cp: TestCluster, namespace: string): Promise<void> {
  await eventually(
    async () => (await call(cp, 'GET', `/api/v1/namespaces/${namespace}/configmaps/kube-root-ca.crt`)).code === 200,
    { what: `kube-root-ca.crt in ${namespace}` },
  );
}

/** Creates a namespace and waits until it holds `kube-root-ca.crt`, like a real cluster's. */
export async function createNamespace(cp: TestCluster, name: string): Promise<void> {
  const r = await call(cp, 'POST', '/api/v1/namespaces', { metadata: { name } });
  if (r.code !== 201) throw new Error(`create namespace ${name}: ${r.code} ${r.text}`);
  await rootCaPublished(cp, name);
}
