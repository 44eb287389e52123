// Raw HTTPS requests to a test cluster, for the headers and bytes kubectl does not show.
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { TestCluster } from '../../../helpers/control-plane.ts';

export interface Reply {
  code: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export function get(
  cp: TestCluster,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${cp.url}${path}`,
      { method, ca: cp.caPem, headers: { Authorization: `Bearer ${cp.token}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function getJson<T = unknown>(cp: TestCluster, path: string): Promise<T> {
  const r = await get(cp, path, { Accept: 'application/json' });
  if (r.code !== 200) throw new Error(`GET ${path}: ${r.code} ${r.body.toString()}`);
  return JSON.parse(r.body.toString()) as T;
}
