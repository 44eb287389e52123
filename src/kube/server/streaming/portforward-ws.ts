// port-forward over WebSocket channels (kubelet portforward/websocket.go), as the Python client
// uses it: the ports come from `?ports=`, port i has data channel 2i and error channel 2i+1, and
// each channel's first message is the port as two little-endian bytes. Every port is connected
// at once; the connection closes when all of them are done.
import { Duplex } from 'node:stream';
import { forward } from './forward.ts';
import type { PortOpener } from './portforward-spdy.ts';
import type { ChannelConnection } from './ws-channels.ts';

export async function servePortForwardOverWebSocket(
  conn: ChannelConnection,
  ports: number[],
  opener: PortOpener,
): Promise<void> {
  for (const [i, port] of ports.entries()) {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(port);
    await conn.send(2 * i, prefix);
    await conn.send(2 * i + 1, prefix);
  }
  await Promise.all(
    ports.map(async (port, i) => {
      let pod: Duplex;
      try {
        pod = await opener.open(port);
      } catch (e) {
        await conn.send(2 * i + 1, opener.describe(port, e instanceof Error ? e.message : String(e)));
        return;
      }
      conn.onClose(() => pod.destroy());
      const client = Duplex.from({ readable: conn.input(2 * i), writable: conn.output(2 * i) });
      await forward(client, pod);
    }),
  );
  conn.close();
}

/** kubelet NewV4Options: `ports` (the API's name for the kubelet's `port`), comma-separated. */
export function parsePorts(query: URLSearchParams): number[] | string {
  const values = query.getAll('ports');
  if (values.length === 0) return 'query parameter "port" is required';
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') return 'query parameter "port" cannot be empty';
    for (const p of value.split(',')) {
      if (!/^\d+$/.test(p) || Number(p) > 65535) return `unable to parse "${value}" as a port`;
      if (Number(p) < 1) return `port "${value}" must be > 0`;
      ports.push(Number(p));
    }
  }
  return ports;
}
