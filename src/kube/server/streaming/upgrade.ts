// The 'upgrade' listener of the API server: exec, attach and portforward arrive as WebSocket or
// SPDY/3.1 upgrade requests. They are authenticated like every request, checked by the API
// server's rules (pod, container, node), then handed to the protocol their headers negotiate.
// Upgrade requests for any other path are served as ordinary requests, as Go's net/http does.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { badRequest, internalError, StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ExecSession, PodStreams } from '../../kubelet/streams.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { parseResourcePath } from '../request.ts';
import type { HandlerDeps } from '../resource/types.ts';
import { execRequest, missingStreams, parseExecOptions, type ExecOptions } from './exec-options.ts';
import { serveExecOverSpdy } from './exec-spdy.ts';
import { serveExecOverWebSocket } from './exec-ws.ts';
import { writeStatusResponse, writeTextResponse } from './http-response.ts';
import {
  chooseExecWebSocket,
  choosePortForwardWebSocket,
  EXEC_SPDY_PROTOCOLS,
  isWebSocketRequest,
  KUBELET_EXEC_WS,
  KUBELET_PORT_FORWARD_WS,
  negotiateSpdy,
  offeredWebSocketProtocols,
  PORT_FORWARD_SPDY_PROTOCOLS,
  unsupportedWebSocketProtocols,
} from './negotiate.ts';
import { chooseContainer, getPod, isNodeSubresource, requireNode } from './pod-target.ts';
import { servePortForwardOverSpdy, portForwardStreamProblem, type PortOpener } from './portforward-spdy.ts';
import { parsePorts, servePortForwardOverWebSocket } from './portforward-ws.ts';
import { notServed } from './requests.ts';
import { SpdySession } from './spdy/session.ts';
import { ChannelConnection } from './ws-channels.ts';
import { webSocketByteStream } from './ws-tunnel.ts';
import { ImpersonationRequestError } from '../../auth/impersonation.ts';

export interface UpgradeContext {
  deps: HandlerDeps;
  catalog: ResourceCatalog;
  /** Authenticates and authorizes the request as every other (throws 401/403). */
  admit(req: IncomingMessage, url: URL): unknown;
  /** Serves a request that merely carries Upgrade headers as an ordinary request. */
  serveOrdinary(req: IncomingMessage, socket: Duplex): void;
}

/** A kubelet refusal: plain text with its HTTP code, passed on by the API server's proxy. */
class KubeletRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly headers: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

export function createUpgradeHandler(
  ctx: UpgradeContext,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const chosenProtocol = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false });
  // The protocol is chosen here, and the library never sees the client's list: it refuses
  // `SPDY/3.1+portforward.k8s.io`, whose slash is not an HTTP token character.
  wss.on('headers', (headers: string[], req: IncomingMessage) => {
    const protocol = chosenProtocol.get(req);
    if (protocol) headers.push(`Sec-WebSocket-Protocol: ${protocol}`);
  });
  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string): Promise<WebSocket> => {
    chosenProtocol.set(req, protocol);
    delete req.headers['sec-websocket-protocol'];
    return new Promise((resolve) => wss.handleUpgrade(req, socket, head, resolve));
  };

  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    serve(ctx, accept, req, socket, head).catch((e: unknown) => {
      if (e instanceof KubeletRefusal) return writeTextResponse(socket, e.code, e.message, e.headers);
      if (e instanceof ImpersonationRequestError) return writeTextResponse(socket, e.code, e.text);
      const err = e instanceof StatusError ? e : internalError(e instanceof Error ? e.message : String(e));
      writeStatusResponse(socket, err);
    });
  };
}

type Accept = (req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string) => Promise<WebSocket>;

async function serve(
  ctx: UpgradeContext,
  accept: Accept,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const url = new URL(`https://localhost${req.url?.startsWith('/') ? req.url : `/${req.url ?? ''}`}`);
  const route = parseResourcePath(url.pathname);
  const def = route && ctx.catalog.lookup(route.group, route.version, route.resource);
  if (!route || !def || !isNodeSubresource(def, route.subresource) || route.subresource === 'log') {
    return ctx.serveOrdinary(req, socket);
  }
  // WebSocket upgrades are GETs (verb get), SPDY ones POSTs (verb create), as kube authorizes them.
  ctx.admit(req, url);
  const podStreams = ctx.deps.extensions.podStreams;
  if (!podStreams || route.namespace === undefined || route.name === undefined) throw notServed();
  const pod = getPod(ctx.deps.store, def, route.namespace, route.name);
  const query = url.searchParams;
  if (route.subresource === 'portforward') {
    requireNode(pod);
    return upgradePortForward(accept, req, socket, head, query, opener(podStreams, pod));
  }
  const options = parseExecOptions(query);
  const container = chooseContainer(pod, options.container);
  requireNode(pod);
  if (route.subresource === 'attach') {
    throw badRequest(
      `attach is not supported: the nodes of this cluster cannot attach to container ${container}; use exec`,
    );
  }
  const start = async (): Promise<ExecSession> => {
    const missing = missingStreams(options);
    if (missing) throw new KubeletRefusal(400, missing);
    try {
      return await podStreams.exec(pod, execRequest(options, container));
    } catch (e) {
      if (e instanceof KubeletRefusal) throw e;
      throw new KubeletRefusal(e instanceof StatusError ? e.code : 500, e instanceof Error ? e.message : String(e));
    }
  };
  return upgradeExec(accept, req, socket, head, options, start);
}

async function upgradeExec(
  accept: Accept,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: ExecOptions,
  start: () => Promise<ExecSession>,
): Promise<void> {
  if (isWebSocketRequest(req)) {
    const offered = offeredWebSocketProtocols(req);
    const protocol = chooseExecWebSocket(offered);
    if (!protocol) throw new KubeletRefusal(403, unsupportedWebSocketProtocols(offered, KUBELET_EXEC_WS));
    // Only v5 is the API server's own: the kubelet's protocols refuse before the upgrade.
    const started = protocol.translated ? undefined : await start();
    if (started && socket.destroyed) return started.kill();
    let accepted = false;
    // A handshake the WebSocket library refuses closes the socket without calling back.
    if (started) socket.once('close', () => accepted || started.kill());
    const ws = await accept(req, socket, head, protocol.name);
    accepted = true;
    const conn = new ChannelConnection(ws, protocol.framing);
    return serveExecOverWebSocket(conn, protocol, options, started ? () => Promise.resolve(started) : start);
  }
  const protocol = negotiate(req, EXEC_SPDY_PROTOCOLS);
  const exec = await start();
  const session = switchToSpdy(socket, protocol);
  serveExecOverSpdy(session, protocol, options, exec);
  session.received(head);
}

async function upgradePortForward(
  accept: Accept,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  query: URLSearchParams,
  ports: PortOpener,
): Promise<void> {
  if (isWebSocketRequest(req)) {
    const offered = offeredWebSocketProtocols(req);
    const protocol = choosePortForwardWebSocket(offered);
    if (!protocol) throw new KubeletRefusal(403, unsupportedWebSocketProtocols(offered, KUBELET_PORT_FORWARD_WS));
    if (protocol.kind === 'tunnel') {
      const ws = await accept(req, socket, head, protocol.name);
      servePortForwardOverSpdy(new SpdySession(webSocketByteStream(ws), portForwardStreamProblem), ports);
      return;
    }
    const requested = parsePorts(query);
    if (typeof requested === 'string') throw new KubeletRefusal(400, requested);
    const ws = await accept(req, socket, head, protocol.name);
    return servePortForwardOverWebSocket(new ChannelConnection(ws, protocol.framing), requested, ports);
  }
  const protocol = negotiate(req, PORT_FORWARD_SPDY_PROTOCOLS);
  const session = switchToSpdy(socket, protocol, portForwardStreamProblem);
  servePortForwardOverSpdy(session, ports);
  session.received(head);
}

function negotiate(req: IncomingMessage, serverProtocols: string[]): string {
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  if (!upgrade.includes('spdy/3.1')) {
    throw new KubeletRefusal(400, 'unable to upgrade: missing upgrade headers in request');
  }
  const negotiated = negotiateSpdy(req, serverProtocols);
  if (!negotiated.ok) {
    const accepted: Record<string, string[]> = negotiated.accepted
      ? { 'X-Accepted-Stream-Protocol-Versions': negotiated.accepted }
      : {};
    throw new KubeletRefusal(negotiated.code, negotiated.text, accepted);
  }
  return negotiated.protocol;
}

function switchToSpdy(
  socket: Duplex,
  protocol: string,
  validate?: (headers: Record<string, string[]>) => string | undefined,
): SpdySession {
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
      `X-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  return new SpdySession(socket, validate);
}

function opener(podStreams: PodStreams, pod: JsonObject): PortOpener {
  const meta = (pod.metadata ?? {}) as { name?: string; namespace?: string; uid?: string };
  return {
    open: (port) => podStreams.portForward(pod, port),
    describe: (port, why) =>
      `error forwarding port ${port} to pod ${meta.namespace ?? ''}/${meta.name ?? ''}, uid ${meta.uid ?? ''}: ${why}`,
  };
}
