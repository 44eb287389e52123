// A scriptable plain-HTTP server for transport tests (the control plane can't misbehave on demand).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface FakeHttp {
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  handle(h: Handler): void;
  close(): Promise<void>;
  kubeconfig(extraUser?: Record<string, unknown>): string;
}

export async function startFakeHttp(): Promise<FakeHttp> {
  let handler: Handler = (_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'no handler' }));
  };
  const requests: FakeHttp['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    handle: (h) => (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    kubeconfig: (extraUser = { token: 'secret-token' }) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: extraUser }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'team' } }],
        'current-context': 'ctx',
      }),
  };
}

export function json(
  res: http.ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
