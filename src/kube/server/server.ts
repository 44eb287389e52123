// The HTTPS front door: authentication, impersonation and authorization of every request,
// discovery, health endpoints, and routing of resource paths to the generic handler. Every
// failure leaves as a Status body.
import { createServer, type Server } from 'node:https';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { internalError, StatusError } from '../../apimachinery/errors/index.ts';
import type { ResourceCatalog } from '../registry/catalog.ts';
import type { ObjectStore } from '../registry/store/index.ts';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.ts';
import { parseResourcePath } from './request.ts';
import { handleResource } from './resource-handler.ts';
import { sendJson } from './resource/response.ts';
import type { HandlerDeps } from './resource/types.ts';
import { WatchRegistry } from './watches.ts';
import { InFlightLimiter, type InFlightLimits } from './inflight.ts';
import { FaultInjector } from './faults/index.ts';
import type { Extensions } from './extensions.ts';
import { isNodeSubresource } from './streaming/pod-target.ts';
import { serveNodeSubresource } from './streaming/requests.ts';
import { createUpgradeHandler } from './streaming/upgrade.ts';
import { requestAttributes } from '../auth/attributes.ts';
import { errorHeaders, requireAllowed } from '../auth/forbidden.ts';
import { ImpersonationRequestError, impersonate } from '../auth/impersonation.ts';
import type { Attributes, Authenticator, Authorizer } from '../auth/types.ts';

export interface ApiServerOptions {
  catalog: ResourceCatalog;
  store: ObjectStore;
  extensions: Extensions;
  authenticator: Authenticator;
  authorizer: Authorizer;
  tls: { certPem: string; keyPem: string };
  /** How often an idle watch that asked for bookmarks gets one. Default 30 s. */
  bookmarkIntervalMs?: number;
  /**
   * kube-apiserver's --min-request-timeout, in seconds: a watch without timeoutSeconds is ended
   * after a random time between this and twice this, so its client relists. Default 1800, as kube;
   * 0: such watches never time out.
   */
  minRequestTimeoutSeconds?: number;
  /** kube's max-in-flight limits (429 with Retry-After over them). Default 400 reads, 200 writes. */
  inflight?: InFlightLimits;
  /** Extra routes (OpenAPI) tried before resource routing; return true when handled. */
  routes?: Array<(req: IncomingMessage, res: ServerResponse, path: string) => boolean | Promise<boolean>>;
  /** Whether the server is ready (readyz); defaults to always. */
  ready?: () => boolean;
}

export interface ApiServer {
  server: Server;
  watches: WatchRegistry;
  /** Faults injected on request paths (none unless a test asks). */
  faults: FaultInjector;
  close(): Promise<void>;
}

const DISCOVERY_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const DISCOVERY_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

function statusBody(e: StatusError): string {
  return JSON.stringify(e.toStatus());
}

function wantsAggregated(req: IncomingMessage): string | undefined {
  const accept = String(req.headers.accept ?? '').replace(/\s+/g, '');
  for (const part of accept.split(',')) {
    if (part.includes('as=APIGroupDiscoveryList') && part.includes('g=apidiscovery.k8s.io')) {
      if (part.includes('v=v2beta1')) return DISCOVERY_V2BETA1;
      if (part.includes('v=v2')) return DISCOVERY_V2;
    }
  }
  return undefined;
}

export function createApiServer(opts: ApiServerOptions): ApiServer {
  const watches = new WatchRegistry();
  const inflight = new InFlightLimiter(opts.inflight);
  const faults = new FaultInjector(() => opts.store.storage.currentRevision());
  const deps: HandlerDeps = {
    store: opts.store,
    watches,
    extensions: opts.extensions,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds ?? 1800,
    faults,
  };
  const sockets = new Set<Socket>();

  /** Who the request acts as, allowed to do what it asks: throws 401, 403 (or 500 for bad impersonation). */
  const admit = (req: IncomingMessage, url: URL): Attributes => {
    const user = impersonate(req, url, opts.authenticator.authenticate(req), opts.authorizer);
    const attributes = requestAttributes(req.method ?? 'GET', url, user);
    requireAllowed(attributes, opts.authorizer.authorize(attributes));
    return attributes;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let url: URL;
    try {
      // Prefixing the origin keeps `//x` a path rather than a host, as in Go's net/http.
      url = new URL(`https://localhost${req.url?.startsWith('/') ? req.url : `/${req.url ?? ''}`}`);
    } catch {
      throw new StatusError(400, 'BadRequest', 'invalid request URL');
    }
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const attributes = admit(req, url);
    const { user } = attributes;
    if (!inflight.admit(attributes, req, res)) return;
    if (await faults.intercept(req, res, url, attributes)) return;
    if (path === '/healthz' || path === '/livez') return sendText(res, 200, 'ok');
    if (path === '/readyz')
      return opts.ready && !opts.ready() ? sendText(res, 500, 'not ready') : sendText(res, 200, 'ok');
    if (path === '/version') return sendJson(res, 200, JSON.stringify(versionInfo()));
    for (const route of opts.routes ?? []) if (await route(req, res, path)) return;

    const { catalog } = opts;
    if (path === '/api' || path === '/apis') {
      const aggregated = wantsAggregated(req);
      if (aggregated) {
        const apiVersion = aggregated === DISCOVERY_V2 ? 'apidiscovery.k8s.io/v2' : 'apidiscovery.k8s.io/v2beta1';
        const body = JSON.stringify(aggregatedDiscovery(catalog, path === '/api', apiVersion));
        res.writeHead(200, { 'Content-Type': aggregated, 'Content-Length': Buffer.byteLength(body), Vary: 'Accept' });
        res.end(body);
        return;
      }
      return sendJson(res, 200, JSON.stringify(path === '/api' ? apiVersions() : apiGroupList(catalog)));
    }
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = apiResourceList(catalog, '', parts[1]);
      if (doc) return sendJson(res, 200, JSON.stringify(doc));
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = apiGroup(catalog, parts[1]);
      if (doc) return sendJson(res, 200, JSON.stringify(doc));
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const doc = apiResourceList(catalog, parts[1], parts[2]);
      if (doc) return sendJson(res, 200, JSON.stringify(doc));
    }
    const route = parseResourcePath(path);
    const def = route && catalog.lookup(route.group, route.version, route.resource);
    if (!route || !def) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
    if (isNodeSubresource(def, route.subresource)) {
      return serveNodeSubresource(deps, def, route, req, res, url.searchParams);
    }
    await handleResource(deps, def, route, req, res, url.searchParams, user);
  };

  const serveRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((e: unknown) => {
      // A client that goes away mid-body is routine; there is no one left to answer, nothing to log.
      if (clientAborted(req, e)) return void res.destroy();
      if (e instanceof ImpersonationRequestError && !res.headersSent) {
        req.resume();
        return sendText(res, e.code, `${e.text}\n`);
      }
      const err = e instanceof StatusError ? e : internalError(e instanceof Error ? e.message : String(e));
      if (!(e instanceof StatusError)) console.error('peerpods apiserver: unexpected error', e);
      if (res.headersSent) {
        res.end();
        return;
      }
      // Unread request bodies would otherwise stall keep-alive connections.
      req.resume();
      for (const [name, value] of Object.entries(errorHeaders(err))) res.setHeader(name, value);
      sendJson(res, err.code, statusBody(err));
    });
  };
  const server = createServer({ cert: opts.tls.certPem, key: opts.tls.keyPem, keepAliveTimeout: 65_000 }, serveRequest);
  /** Serves a request Node handed over with its socket, on a response of its own; the connection closes after it. */
  const serveOnSocket = (req: IncomingMessage, socket: Duplex): void => {
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    res.on('finish', () => socket.end());
    if (!req.complete) req.push(null);
    serveRequest(req, res);
  };
  // exec, attach and portforward upgrade to WebSocket or SPDY; other upgrade requests are served
  // as ordinary ones.
  server.on('upgrade', createUpgradeHandler({ deps, catalog: opts.catalog, admit, serveOrdinary: serveOnSocket }));
  // Go's net/http hands CONNECT to the handler like any method, and kube answers it as such (405
  // on resource paths, as go-restful has no CONNECT routes); Node would drop the connection.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    serveOnSocket(req, socket);
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // Node's parser rejects what Go's net/http serves (e.g. unknown methods, which kube answers
  // with 405); answer with a Status instead of dropping the connection.
  server.on('clientError', (e: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || e.code === 'ECONNRESET') return void socket.destroy();
    const invalidMethod = e.code === 'HPE_INVALID_METHOD';
    const err = invalidMethod
      ? new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')
      : new StatusError(400, 'BadRequest', `malformed HTTP request: ${e.code ?? e.message}`);
    const body = statusBody(err);
    socket.end(
      `HTTP/1.1 ${err.code} ${invalidMethod ? 'Method Not Allowed' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.headersTimeout = 60_000;
  server.requestTimeout = 0; // watches are long-lived

  return {
    server,
    watches,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        watches.closeAll();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** The request stream failed because its client closed the connection (Node's "aborted"). */
function clientAborted(req: IncomingMessage, e: unknown): boolean {
  return req.destroyed && e instanceof Error && (e as NodeJS.ErrnoException).code === 'ECONNRESET';
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
