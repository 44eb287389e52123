// Requests and kubectl runs as a non-admin user of a test cluster: each user is a static bearer
// token (ControlPlaneOptions.users), and RBAC decides what it may do.
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { TestCluster } from '../../helpers/control-plane.ts';
import type { RawResponse } from '../server/http.ts';

/** A copy of the cluster's kubeconfig that presents `token` instead of the admin's. */
export function kubeconfigFor(cp: TestCluster, name: string, token: string): string {
  const path = join(cp.dir, `kubeconfig-${name}`);
  writeFileSync(path, cp.kubeconfig.split(cp.token).join(token));
  return path;
}

/** One JSON request with `token` (the admin's when omitted). */
export function callAs(
  cp: TestCluster,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<RawResponse & { json: Record<string, unknown> }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      {
        method,
        ca: cp.caPem,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON: the test looks at body
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
