// port-forward over SPDY (kubelet portforward/httpstream.go): for every local connection the
// client opens an error stream and a data stream with the same `requestID` and `port`; once both
// are there the data stream is joined to the pod's port, and the error stream carries any failure
// and then closes. Used for the plain SPDY upgrade and for SPDY tunnelled through WebSocket.
import type { Duplex } from 'node:stream';
import { forward } from './forward.ts';
import { headerValue, type SpdyHeaders } from './spdy/header-block.ts';
import type { SpdySession } from './spdy/session.ts';
import { endStream, type SpdyStream } from './spdy/stream.ts';

export const STREAM_PAIR_TIMEOUT_MS = 30_000;

/** httpStreamReceived: a stream the kubelet refuses, or undefined. */
export function portForwardStreamProblem(headers: SpdyHeaders): string | undefined {
  const port = headerValue(headers, 'port');
  if (port === '') return '"port" header is required';
  if (!/^\d+$/.test(port) || Number(port) > 65535) return `unable to parse "${port}" as a port`;
  if (Number(port) < 1) return `port "${port}" must be > 0`;
  const type = headerValue(headers, 'streamType');
  if (type === '') return '"streamType" header is required';
  if (type !== 'error' && type !== 'data') return `invalid stream type "${type}"`;
  return undefined;
}

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
  timer: NodeJS.Timeout;
}

export interface PortOpener {
  open(port: number): Promise<Duplex>;
  /** The kubelet's wording of a failure: `error forwarding port P to pod ...: <why>`. */
  describe(port: number, why: string): string;
}

export function servePortForwardOverSpdy(session: SpdySession, opener: PortOpener): void {
  const pairs = new Map<string, StreamPair>();
  const connections = new Set<Duplex>();
  session.on('close', () => {
    for (const pair of pairs.values()) clearTimeout(pair.timer);
    for (const conn of connections) conn.destroy();
  });

  session.on('stream', (stream: SpdyStream) => {
    const type = headerValue(stream.headers, 'streamType');
    const requestId = requestIdOf(stream, type);
    let pair = pairs.get(requestId);
    if (!pair) {
      const created: StreamPair = {
        timer: setTimeout(() => {
          pairs.delete(requestId);
          if (created.error) void endStream(created.error, `(conn=${requestId}) timed out waiting for streams`);
        }, STREAM_PAIR_TIMEOUT_MS),
      };
      pair = created;
      pairs.set(requestId, pair);
    }
    const slot = type === 'error' ? 'error' : 'data';
    if (pair[slot]) {
      if (pair.error)
        void endStream(pair.error, `error processing stream for request ${requestId}: ${slot} stream already assigned`);
      return;
    }
    pair[slot] = stream;
    if (pair.data && pair.error) {
      clearTimeout(pair.timer);
      pairs.delete(requestId);
      void run(pair.data, pair.error);
    }
  });

  const run = async (data: SpdyStream, error: SpdyStream): Promise<void> => {
    const port = Number(headerValue(data.headers, 'port'));
    let conn: Duplex;
    try {
      conn = await opener.open(port);
    } catch (e) {
      await endStream(error, opener.describe(port, e instanceof Error ? e.message : String(e)));
      await endStream(data);
      return;
    }
    connections.add(conn);
    await forward(data, conn);
    connections.delete(conn);
    await endStream(error);
  };
}

/** Old clients sent no requestID: the kubelet pairs consecutive stream ids instead. */
function requestIdOf(stream: SpdyStream, type: string): string {
  const given = headerValue(stream.headers, 'requestID');
  if (given !== '') return given;
  return String(type === 'error' ? stream.id : stream.id - 2);
}
