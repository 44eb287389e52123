// Which wire protocol an upgrade request gets (cluster-runtime.md §3.3/3.4/3.6). SPDY: the first
// X-Stream-Protocol-Version the client lists that the server speaks (apimachinery
// httpstream.Handshake). WebSocket: v5.channel.k8s.io is served by the API server itself and
// SPDY/3.1+portforward.k8s.io tunnels SPDY; any other subprotocol is the kubelet's choice
// among the channel protocols it speaks (wsstream handshake: the client's first supported one).
import type { IncomingMessage } from 'node:http';
import type { ChannelFraming } from './ws-channels.ts';

export const EXEC_SPDY_PROTOCOLS = [
  'v5.channel.k8s.io',
  'v4.channel.k8s.io',
  'v3.channel.k8s.io',
  'v2.channel.k8s.io',
  'channel.k8s.io',
];
export const PORT_FORWARD_SPDY_PROTOCOLS = ['portforward.k8s.io'];
export const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
const V5 = 'v5.channel.k8s.io';

export function isWebSocketRequest(req: IncomingMessage): boolean {
  return (
    String(req.headers.upgrade ?? '').toLowerCase() === 'websocket' &&
    /(^|,\s*)upgrade($|\s*,)/.test(String(req.headers.connection ?? '').toLowerCase())
  );
}

/** httpstream.IsUpgradeRequest: a Connection header mentioning upgrade. */
export function isUpgradeRequest(req: IncomingMessage): boolean {
  return String(req.headers.connection ?? '')
    .toLowerCase()
    .includes('upgrade');
}

function commaSeparated(value: string | string[] | undefined): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export type SpdyNegotiation =
  { ok: true; protocol: string } | { ok: false; code: number; text: string; accepted?: string[] };

export function negotiateSpdy(req: IncomingMessage, serverProtocols: string[]): SpdyNegotiation {
  const client = commaSeparated(req.headers['x-stream-protocol-version']);
  if (client.length === 0) {
    return { ok: false, code: 400, text: 'unable to upgrade: X-Stream-Protocol-Version is required' };
  }
  const chosen = client.find((p) => serverProtocols.includes(p));
  if (chosen !== undefined) return { ok: true, protocol: chosen };
  return {
    ok: false,
    code: 403,
    text: `unable to upgrade: unable to negotiate protocol: client supports [${client.join(' ')}], server accepts [${serverProtocols.join(' ')}]`,
    accepted: serverProtocols,
  };
}

export function offeredWebSocketProtocols(req: IncomingMessage): string[] {
  return commaSeparated(req.headers['sec-websocket-protocol']);
}

export interface ExecWebSocketProtocol {
  /** "" when the client offered none (answered without a subprotocol). */
  name: string;
  framing: ChannelFraming;
  /** v4 and v5 send a JSON Status on the error channel. */
  jsonStatus: boolean;
  /** v5: terminated by the API server, which reports client-go's exit errors. */
  translated: boolean;
}

const KUBELET_EXEC_WS = [
  '',
  'channel.k8s.io',
  'base64.channel.k8s.io',
  'v4.channel.k8s.io',
  'v4.base64.channel.k8s.io',
];
const KUBELET_PORT_FORWARD_WS = ['', 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io'];

function kubeletChoice(offered: string[], supported: string[]): string | undefined {
  return (offered.length === 0 ? [''] : offered).find((p) => supported.includes(p));
}

export function chooseExecWebSocket(offered: string[]): ExecWebSocketProtocol | undefined {
  if (offered.includes(V5)) {
    return { name: V5, framing: { base64: false, closeSignals: true }, jsonStatus: true, translated: true };
  }
  const name = kubeletChoice(offered, KUBELET_EXEC_WS);
  if (name === undefined) return undefined;
  return {
    name,
    framing: { base64: name.includes('base64'), closeSignals: false },
    jsonStatus: name.startsWith('v4.'),
    translated: false,
  };
}

export type PortForwardWebSocketProtocol =
  { kind: 'tunnel'; name: string } | { kind: 'channels'; name: string; framing: ChannelFraming };

export function choosePortForwardWebSocket(offered: string[]): PortForwardWebSocketProtocol | undefined {
  if (offered.includes(PORT_FORWARD_TUNNEL_PROTOCOL)) return { kind: 'tunnel', name: PORT_FORWARD_TUNNEL_PROTOCOL };
  const name = kubeletChoice(offered, KUBELET_PORT_FORWARD_WS);
  if (name === undefined) return undefined;
  return { kind: 'channels', name, framing: { base64: name.includes('base64'), closeSignals: false } };
}

/** x/net/websocket's refusal when no subprotocol fits (the kubelet's wsstream handshake). */
export function unsupportedWebSocketProtocols(offered: string[], supported: string[]): string {
  return `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${supported.join(' ')}]`;
}

export { KUBELET_EXEC_WS, KUBELET_PORT_FORWARD_WS };
