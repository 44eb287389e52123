// JSON answers, with admission and decoding warnings as `Warning: 299` headers.
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, code: number, body: string, warnings: string[] = []): void {
  const headers: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(body);
}
