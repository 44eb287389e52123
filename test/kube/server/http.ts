// Raw HTTPS requests to a test cluster, for what typed clients hide (Accept headers, Tables).
import { request } from 'node:https';
import type { TestCluster } from '../../helpers/control-plane.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function call(
  cp: TestCluster,
  method: string,
  path: string,
  opts: { body?: unknown; accept?: string; contentType?: string } = {},
): Promise<RawResponse> {
  const url = new URL(path, cp.url);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: cp.caPem,
        headers: {
          Authorization: `Bearer ${cp.token}`,
          ...(opts.accept ? { Accept: opts.accept } : {}),
          ...(payload ? { 'Content-Type': opts.contentType ?? 'application/json' } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const TABLE_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** A streaming watch whose events (one JSON document a line) collect in `events` until `stop`. */
export function openWatch<E = { type: string; object: unknown }>(
  cp: TestCluster,
  path: string,
  accept?: string,
): { events: E[]; stop: () => void } {
  const events: E[] = [];
  const req = request(
    new URL(path, cp.url),
    { ca: cp.caPem, headers: { Authorization: `Bearer ${cp.token}`, ...(accept ? { Accept: accept } : {}) } },
    (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buf.slice(0, nl)) as E);
          buf = buf.slice(nl + 1);
        }
      });
      res.on('error', () => undefined);
    },
  );
  req.on('error', () => undefined);
  req.end();
  return { events, stop: () => req.destroy() };
}
