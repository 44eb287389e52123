// Answers written straight onto an upgrade request's socket: there is no ServerResponse once
// Node hands the socket to the 'upgrade' listener.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { StatusError } from '../../../apimachinery/errors/index.ts';
import { errorHeaders } from '../../auth/forbidden.ts';

export function writeRawResponse(
  socket: Duplex,
  code: number,
  headers: Record<string, string | string[]>,
  body: string,
): void {
  if (socket.destroyed) return;
  const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`];
  const all: Record<string, string | string[]> = {
    ...headers,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  for (const [name, value] of Object.entries(all)) {
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** A Status body, as the API server's own refusals are. */
export function writeStatusResponse(socket: Duplex, err: StatusError): void {
  const headers = { 'Content-Type': 'application/json', ...errorHeaders(err) };
  writeRawResponse(socket, err.code, headers, JSON.stringify(err.toStatus()));
}

/** The kubelet's refusals are plain text (http.Error), passed on by the API server's proxy. */
export function writeTextResponse(
  socket: Duplex,
  code: number,
  text: string,
  headers: Record<string, string[]> = {},
): void {
  writeRawResponse(socket, code, { 'Content-Type': 'text/plain; charset=utf-8', ...headers }, `${text}\n`);
}
