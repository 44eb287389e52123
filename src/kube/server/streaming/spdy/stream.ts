// One SPDY stream as a Node Duplex: what the peer sends arrives on the readable side (ending at
// its FIN), what is written leaves as DATA frames, and end() sends our FIN. reset() (or the
// peer's RST_STREAM) tears both directions down at once, as spdystream's Reset.
import { Duplex } from 'node:stream';
import { encodeDataFrame, FLAG_FIN, MAX_DATA_LENGTH } from './frames.ts';
import type { SpdyHeaders } from './header-block.ts';

/** What a stream needs of its session. */
export interface StreamOwner {
  /** Queues frame bytes in wire order; resolves when the transport can take more. */
  send(frame: Buffer): Promise<void>;
  resetStream(id: number): void;
  forget(id: number): void;
}

export class SpdyStream extends Duplex {
  private remoteFinished = false;
  private localFinished = false;

  constructor(
    readonly id: number,
    readonly headers: SpdyHeaders,
    private readonly owner: StreamOwner,
  ) {
    super({ allowHalfOpen: true });
    // A peer gone mid-write is ordinary here; handlers look at 'close', not 'error'.
    this.on('error', () => undefined);
  }

  /** Data from the peer (session side). */
  receive(data: Buffer, fin: boolean): void {
    if (this.remoteFinished || this.destroyed) return;
    if (data.length > 0) this.push(data);
    if (fin) {
      this.remoteFinished = true;
      this.push(null);
      this.settle();
    }
  }

  /** The peer reset the stream, or the connection went away. */
  abort(): void {
    this.remoteFinished = true;
    this.localFinished = true;
    this.owner.forget(this.id);
    this.destroy();
  }

  /** Drops the stream in both directions and tells the peer (RST_STREAM CANCEL). */
  reset(): void {
    if (this.destroyed) return;
    this.owner.resetStream(this.id);
    this.abort();
  }

  override _read(): void {
    // Pushed as frames arrive; SPDY flow control is not used by spdystream peers.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const sends: Promise<void>[] = [];
    for (let at = 0; at < chunk.length; at += MAX_DATA_LENGTH) {
      sends.push(this.owner.send(encodeDataFrame(this.id, 0, chunk.subarray(at, at + MAX_DATA_LENGTH))));
    }
    Promise.all(sends).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.localFinished = true;
    this.owner.send(encodeDataFrame(this.id, FLAG_FIN)).then(() => {
      this.settle();
      callback();
    }, callback);
  }

  private settle(): void {
    if (this.remoteFinished && this.localFinished) this.owner.forget(this.id);
  }
}

/** Writes the last bytes and FIN; resolves when they went out or the stream was torn down. */
export function endStream(stream: SpdyStream, last?: string | Buffer): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.end(last !== undefined && last.length > 0 ? last : undefined, () => resolve());
  });
}
