// POSTing to the webhook server as the API server does: JSON over TLS, trusting the test CA.
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface Reply {
  status: number;
  body: string;
  peerCn: string;
}

export function post(
  port: number,
  ca: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca, agent: false, headers: { 'content-type': contentType } },
      (res) => {
        const peerCn = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), peerCn }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
