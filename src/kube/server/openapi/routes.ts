// HTTP endpoints: /openapi/v3 (discovery), /openapi/v3/<gv>, /openapi/v2 and the legacy
// /swagger-2.0.0.pb-v1 kubectl falls back to. Content negotiation, ETag/304 and the hashed,
// immutable v3 URLs follow kube-openapi's handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '../../../apimachinery/errors/index.ts';
import type { OpenApiDocuments, Served } from './documents.ts';

/** What /openapi/v2 answers protobuf requests with. The `@` form kubectl sends is not a valid media type. */
export const PROTO_V2_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTO_V2_ACCEPTED = new Set([
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
]);

export type Route = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

type Format = 'json' | 'proto';

/** The first acceptable format in the client's order of preference. */
function negotiate(accept: string | undefined, offered: Format[]): Format | undefined {
  const clauses = (accept || '*/*')
    .split(',')
    .map((c) => {
      const [type, ...params] = c.split(';').map((x) => x.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { type, q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { type } of clauses) {
    if (offered.includes('json') && (type === 'application/json' || type === 'application/*' || type === '*/*'))
      return 'json';
    if (offered.includes('proto') && PROTO_V2_ACCEPTED.has(type)) return 'proto';
  }
  return undefined;
}

function notAcceptable(): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json, ' + PROTO_V2_CONTENT_TYPE,
  );
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  doc: Served,
  contentType: string,
  extra: Record<string, string> = {},
): void {
  const etag = `"${doc.hash}"`;
  const headers: Record<string, string> = { ETag: etag, Vary: 'Accept', ...extra };
  if (etagMatches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Type': contentType, 'Content-Length': String(doc.body.length) });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}

export function openApiRoute(docs: OpenApiDocuments): Route {
  return (req, res, path) => {
    const v2 = path === '/openapi/v2' || path === '/swagger-2.0.0.pb-v1';
    const v3 = path === '/openapi/v3' || path.startsWith('/openapi/v3/');
    if (!v2 && !v3) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
    }
    req.resume();
    if (path === '/swagger-2.0.0.pb-v1') {
      send(req, res, docs.swaggerProto(), PROTO_V2_CONTENT_TYPE);
    } else if (v2) {
      const format = negotiate(req.headers.accept, ['proto', 'json']);
      if (!format) throw notAcceptable();
      if (format === 'proto') send(req, res, docs.swaggerProto(), PROTO_V2_CONTENT_TYPE);
      else send(req, res, docs.swaggerJson(), 'application/json');
    } else if (path === '/openapi/v3') {
      send(req, res, docs.discovery(), 'application/json', { 'Cache-Control': 'no-cache, private' });
    } else {
      serveGroupVersion(req, res, docs, path.slice('/openapi/v3/'.length));
    }
    return true;
  };
}

function serveGroupVersion(req: IncomingMessage, res: ServerResponse, docs: OpenApiDocuments, gvPath: string): void {
  const doc = docs.groupVersion(gvPath);
  if (!doc) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
  if (negotiate(req.headers.accept, ['json']) !== 'json') throw notAcceptable();
  const hash = new URL(req.url ?? '/', 'https://localhost').searchParams.get('hash');
  if (hash && hash !== doc.hash) {
    // A stale link from an older discovery document: point at the current version.
    res.writeHead(301, { Location: `/openapi/v3/${gvPath}?hash=${doc.hash}`, 'Content-Length': '0', Vary: 'Accept' });
    res.end();
    return;
  }
  const caching: Record<string, string> = hash
    ? { 'Cache-Control': 'public, immutable', Expires: new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString() }
    : { 'Cache-Control': 'no-cache, private' };
  send(req, res, doc, 'application/json', caching);
}
