// The channel framing of kube's WebSocket subprotocols (apimachinery wsstream): each message is
// one channel byte then the payload; the `base64.` variants send text messages with the channel
// as an ASCII digit and a base64 payload. v5.channel.k8s.io adds channel 255: a message
// `[255, n]` half-closes channel n (the client's stdin EOF).
import { PassThrough, Writable, type Readable } from 'node:stream';
import type { WebSocket } from 'ws';

export const CLOSE_CHANNEL = 255;

export interface ChannelFraming {
  base64: boolean;
  /** v5: the client may half-close channels with CLOSE_CHANNEL messages. */
  closeSignals: boolean;
}

export class ChannelConnection {
  private readonly inputs = new Map<number, PassThrough>();
  private readonly closeListeners: Array<() => void> = [];
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    private readonly framing: ChannelFraming,
  ) {
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => this.received(toBuffer(data)));
    ws.on('close', () => this.onClosed());
    ws.on('error', () => this.onClosed());
  }

  /** What the client sends on `channel`; ends at its v5 close signal or when the connection goes. */
  input(channel: number): Readable {
    return this.channelInput(channel);
  }

  private channelInput(channel: number): PassThrough {
    let input = this.inputs.get(channel);
    if (!input) {
      input = new PassThrough();
      if (this.closed) input.end();
      this.inputs.set(channel, input);
    }
    return input;
  }

  /** A Writable whose chunks leave as messages on `channel`; ending it sends nothing. */
  output(channel: number): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        this.send(channel, chunk).then(() => callback(), callback);
      },
    });
  }

  send(channel: number, data: Buffer | string): Promise<void> {
    const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return Promise.resolve();
    const message = this.framing.base64
      ? String.fromCharCode(48 + channel) + payload.toString('base64')
      : Buffer.concat([Buffer.from([channel]), payload]);
    return new Promise((resolve) => this.ws.send(message, { binary: !this.framing.base64 }, () => resolve()));
  }

  /** Normal closure: the close frame, then the socket once the client answers it. */
  close(): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000);
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private received(message: Buffer): void {
    if (message.length === 0) return;
    let channel = message[0];
    let payload = message.subarray(1);
    if (this.framing.base64) {
      channel -= 48;
      payload = Buffer.from(payload.toString('latin1'), 'base64');
    }
    if (this.framing.closeSignals && channel === CLOSE_CHANNEL) {
      if (payload.length > 0) this.channelInput(payload[0]).end();
      return;
    }
    const input = this.channelInput(channel);
    if (!input.writableEnded) input.write(payload);
  }

  private onClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const input of this.inputs.values()) if (!input.writableEnded) input.end();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
