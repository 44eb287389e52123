// The WebSocket port-forward tunnel of kubectl ≥ 1.31 (client-go tunneling_connection.go;
// apiserver proxy/streamtunnel.go): binary messages carry a byte stream of SPDY frames, message
// boundaries meaning nothing. This makes the WebSocket the Duplex a SpdySession runs over.
import { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

export function webSocketByteStream(ws: WebSocket): Duplex {
  const stream = new Duplex({
    read() {
      // Messages are pushed as they arrive.
    },
    write(chunk: Buffer, _encoding, callback) {
      if (ws.readyState !== ws.OPEN) return callback();
      ws.send(chunk, { binary: true }, () => callback());
    },
    final(callback) {
      if (ws.readyState === ws.OPEN) ws.close(1000);
      callback();
    },
  });
  stream.on('error', () => undefined);
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (!isBinary) {
      // client-go refuses anything but binary messages; so does the API server's tunnel.
      ws.close(1003);
      return;
    }
    stream.push(Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data));
  });
  ws.on('close', () => {
    stream.push(null);
    stream.destroy();
  });
  ws.on('error', () => stream.destroy());
  return stream;
}
