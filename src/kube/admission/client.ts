// POSTs a review (an AdmissionReview, or a CRD's ConversionReview) to one webhook over HTTPS, the
// way kube-apiserver's webhook client (k8s.io/apiserver/pkg/util/webhook) does for both: the
// server is verified against `caBundle` (system roots without one), a Service reference is dialled
// at the address the resolver gives but verified as `<name>.<namespace>.svc`, and the whole
// exchange is bounded by timeoutSeconds. Failures are described in the Go client's words, since
// operators grep for them.
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ClientConfig, ServiceResolver } from './types.ts';

/** What a call needs of a webhook's configuration: where it is, and how long it may take. */
export interface WebhookEndpoint {
  clientConfig: ClientConfig;
  timeoutSeconds: number;
}

const MAX_RESPONSE_BYTES = 32 << 20;

class Deadline extends Error {
  constructor() {
    super('context deadline exceeded');
  }
}

/** Why the call failed, already prefixed with `Post "<url>": ` where Go's client would. */
export class TransportError extends Error {}

interface Target {
  /** The URL as kube-apiserver would show it, `?timeout=` included. */
  display: string;
  host: string;
  port: number;
  path: string;
  servername?: string;
}

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function describe(err: NodeJS.ErrnoException & { reason?: string }, target: Target): string {
  if (err instanceof Deadline) return err.message;
  const code = err.code ?? '';
  if (UNKNOWN_AUTHORITY.has(code))
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `tls: failed to verify certificate: x509: ${hostMismatch(err, target)}`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  }
  if (code === 'ECONNREFUSED') return `dial tcp ${target.host}:${target.port}: connect: connection refused`;
  return err.message;
}

/** crypto/x509's HostnameError text, from the SANs Node reports on the error. */
function hostMismatch(err: Error & { cert?: { subjectaltname?: string } }, target: Target): string {
  const host = target.servername ?? target.host;
  const sans = (err.cert?.subjectaltname ?? '').split(', ').filter(Boolean);
  if (isIP(host)) {
    const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice('IP Address:'.length));
    if (ips.length === 0) return `cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  const names = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice('DNS:'.length));
  if (names.length === 0) return `certificate is not valid for any names, but wanted to match ${host}`;
  return `certificate is valid for ${names.join(', ')}, not ${host}`;
}

async function resolveTarget(hook: WebhookEndpoint, resolver: ServiceResolver): Promise<Target> {
  const timeoutParam = `timeout=${hook.timeoutSeconds}s`;
  const cc = hook.clientConfig;
  if (cc.service) {
    const s = cc.service;
    const servername = `${s.name}.${s.namespace}.svc`;
    const path = s.path ?? '';
    const display = `https://${servername}:${s.port}${path}?${timeoutParam}`;
    let addr;
    try {
      addr = await resolver(s.namespace, s.name, s.port);
    } catch (e) {
      throw new TransportError(`Post "${display}": ${(e as Error).message}`);
    }
    return { display, host: addr.host, port: addr.port, path: `${path || '/'}?${timeoutParam}`, servername };
  }
  if (!cc.url) throw new TransportError('neither clientConfig.url nor clientConfig.service is set');
  let url: URL;
  try {
    url = new URL(cc.url);
  } catch {
    throw new TransportError(`parse "${cc.url}": invalid URL`);
  }
  url.search = url.search ? `${url.search}&${timeoutParam}` : `?${timeoutParam}`;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    display: url.href,
    host,
    port: url.port ? Number(url.port) : 443,
    path: `${url.pathname}${url.search}`,
    // SNI carries names only; an IP host is checked against the certificate's IP SANs.
    ...(isIP(host) ? {} : { servername: host }),
  };
}

/** Idle connections kept per endpoint: as many as may be in flight, so a burst reuses its sockets. */
const MAX_SOCKETS_PER_ENDPOINT = 64;

interface Pool {
  agent: Agent;
  /** Built once from the caBundle: a context per connection parsed the CA again on every dial. */
  secureContext: SecureContext;
}

/**
 * Keep-alive connections per webhook endpoint (address, verified name and CA), so a pod create
 * does not pay a TLS handshake per webhook, as kube-apiserver's cached webhook clients don't.
 * Every socket a burst opened stays open until idle for a minute: keeping fewer closed most of
 * them after each burst and dialled them again on the next one.
 */
export class WebhookConnections {
  private readonly pools = new Map<string, Pool>();

  /** Throws (before any I/O) when the CA bundle does not parse. */
  poolFor(target: { host: string; port: number; servername?: string }, caPem: string | undefined): Pool {
    const key = `${target.host}|${target.port}|${target.servername ?? ''}|${caPem ?? ''}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = {
        agent: new Agent({
          keepAlive: true,
          maxSockets: MAX_SOCKETS_PER_ENDPOINT,
          maxFreeSockets: MAX_SOCKETS_PER_ENDPOINT,
          timeout: 60_000,
        }),
        secureContext: createSecureContext(caPem ? { ca: caPem } : {}),
      };
      this.pools.set(key, pool);
    }
    return pool;
  }

  close(): void {
    for (const pool of this.pools.values()) pool.agent.destroy();
    this.pools.clear();
  }
}

export interface RawResponse {
  status: number;
  body: string;
}

export async function postReview(
  hook: WebhookEndpoint,
  body: string,
  resolver: ServiceResolver,
  connections?: WebhookConnections,
): Promise<RawResponse> {
  const target = await resolveTarget(hook, resolver);
  return new Promise<RawResponse>((resolve, reject) => {
    const fail = (e: Error) => reject(new TransportError(`Post "${target.display}": ${describe(e, target)}`));
    let req: ReturnType<typeof request>;
    try {
      const caPem = hook.clientConfig.caPem;
      const pool = connections?.poolFor(target, caPem);
      req = request({
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        ...(target.servername ? { servername: target.servername } : {}),
        // Without a connection pool, a private connection per call: no keep-alive socket outlives it.
        ...(pool
          ? { agent: pool.agent, secureContext: pool.secureContext }
          : { agent: false, ...(caPem ? { ca: caPem } : {}) }),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'kube-apiserver-admission',
        },
      });
    } catch (e) {
      // An unparseable caBundle surfaces here, before any I/O.
      fail(e as Error);
      return;
    }
    const timer = setTimeout(() => req.destroy(new Deadline()), hook.timeoutSeconds * 1000);
    req.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`response body larger than ${MAX_RESPONSE_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', () => {
        // Reported through req's 'error' (destroy above, or a reset connection).
      });
    });
    req.end(body);
  });
}

/**
 * The transport admission and CRD conversion share, as kube-apiserver's webhook ClientManager is
 * shared: one Service resolver (replaceable by an embedding process) and one connection pool.
 */
export class WebhookClient {
  private readonly connections = new WebhookConnections();

  constructor(private resolver: ServiceResolver) {}

  setServiceResolver(resolver: ServiceResolver): void {
    this.resolver = resolver;
  }

  post(hook: WebhookEndpoint, body: string): Promise<RawResponse> {
    return postReview(hook, body, this.resolver, this.connections);
  }

  close(): void {
    this.connections.close();
  }
}

/**
 * client-go's error for an answer outside 2xx that is not a Status (rest/request.go
 * newUnstructuredResponseError); undefined for a 2xx answer.
 */
export function unexpectedResponse(status: number, text: string): string | undefined {
  if (status >= 200 && status <= 299) return undefined;
  if (status === 404) return 'the server could not find the requested resource';
  const body = text.trim();
  return `an error on the server (${JSON.stringify(body.slice(0, 256) || 'unknown')}) has prevented the request from succeeding`;
}
