// The server side of a SPDY/3.1 connection, as kube's streaming handlers use spdystream: the
// client opens every stream (SYN_STREAM, odd ids); the server accepts it with an empty SYN_REPLY
// or refuses it with RST_STREAM, echoes the client's PINGs, and says GOAWAY when it is done.
// SETTINGS and WINDOW_UPDATE are read and ignored, as spdystream does.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  encodeControlFrame,
  FrameReader,
  FrameType,
  FLAG_FIN,
  parseStreamHeaders,
  parseSynStream,
  parseTwoWords,
  RstStatus,
  SPDY_VERSION,
  streamHeadersPayload,
  twoWordPayload,
  type Frame,
} from './frames.ts';
import { HeaderCompressor, HeaderDecompressor, type SpdyHeaders } from './header-block.ts';
import { SpdyStream, type StreamOwner } from './stream.ts';

/**
 * A reason to refuse a new stream (it is reset, as spdystream's handler errors do), or undefined
 * to accept it. Accepted streams are emitted as 'stream' once their SYN_REPLY went out.
 */
export type StreamValidator = (headers: SpdyHeaders) => string | undefined;

/** How long a client gets to close the connection after GOAWAY. */
export const CLOSE_TIMEOUT_MS = 30_000;

export class SpdySession extends EventEmitter implements StreamOwner {
  private readonly reader = new FrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private inbound: Promise<void> = Promise.resolve();
  private lastStreamId = 0;
  private closed = false;
  private goneAway = false;

  constructor(
    private readonly transport: Duplex,
    private readonly validate: StreamValidator = () => undefined,
  ) {
    super();
    transport.on('data', (chunk: Buffer) => this.received(chunk));
    transport.on('end', () => this.shutdown());
    transport.on('close', () => this.shutdown());
    transport.on('error', () => this.shutdown());
    // A client gone while the command started still gets its 'close' (listeners attach right after).
    if (transport.destroyed) queueMicrotask(() => this.shutdown());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Feeds bytes that arrived with the upgrade request. */
  received(chunk: Buffer): void {
    if (this.closed || chunk.length === 0) return;
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      return this.shutdown();
    }
    for (const frame of frames) {
      this.inbound = this.inbound.then(() => this.handle(frame)).catch(() => this.shutdown());
    }
  }

  send(frame: Buffer): Promise<void> {
    if (this.closed || this.transport.destroyed || this.transport.writableEnded) return Promise.resolve();
    if (this.transport.write(frame)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.transport.off('drain', done);
        this.transport.off('close', done);
        resolve();
      };
      this.transport.on('drain', done);
      this.transport.on('close', done);
    });
  }

  resetStream(id: number): void {
    void this.send(encodeControlFrame(FrameType.RstStream, 0, twoWordPayload(id, RstStatus.Cancel)));
  }

  forget(id: number): void {
    this.streams.delete(id);
  }

  /**
   * GOAWAY, then the client closes the connection once it has read everything. Ending it from
   * this side could lose frames: spdystream drops the frames it has queued but not yet handled
   * when the connection reaches EOF. A client that never closes is cut off after a while.
   */
  close(): void {
    if (this.closed || this.goneAway) return;
    this.goneAway = true;
    void this.send(encodeControlFrame(FrameType.GoAway, 0, twoWordPayload(this.lastStreamId, 0)));
    setTimeout(() => this.transport.destroy(), CLOSE_TIMEOUT_MS).unref();
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of [...this.streams.values()]) stream.abort();
    this.compressor.close();
    this.decompressor.close();
    if (!this.transport.destroyed) this.transport.destroy();
    this.emit('close');
  }

  private async handle(frame: Frame): Promise<void> {
    if (this.closed) return;
    if (!frame.control) {
      this.streams.get(frame.streamId)?.receive(frame.data, (frame.flags & FLAG_FIN) !== 0);
      return;
    }
    if (frame.version !== SPDY_VERSION) return this.shutdown();
    switch (frame.type) {
      case FrameType.SynStream:
        return this.synStream(frame.payload, frame.flags);
      case FrameType.Headers: {
        // Keep the decompressor in step even though kube's clients send no trailing headers.
        const { headerBlock } = parseStreamHeaders(frame.payload);
        await this.decompressor.decompress(headerBlock);
        return;
      }
      case FrameType.RstStream: {
        const [id] = parseTwoWords(frame.payload);
        this.streams.get(id)?.abort();
        return;
      }
      case FrameType.Ping:
        // Client pings have odd ids; answering the server's own would loop.
        if (frame.payload.length >= 4 && (frame.payload.readUInt32BE(0) & 1) === 1) {
          await this.send(encodeControlFrame(FrameType.Ping, 0, frame.payload.subarray(0, 4)));
        }
        return;
      case FrameType.GoAway:
        this.goneAway = true;
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE, SYN_REPLY (clients never send one) are ignored.
    }
  }

  private async synStream(payload: Buffer, flags: number): Promise<void> {
    const syn = parseSynStream(payload);
    const headers = await this.decompressor.decompress(syn.headerBlock);
    if (this.goneAway || syn.streamId % 2 === 0 || syn.streamId <= this.lastStreamId) {
      this.resetStream(syn.streamId);
      return;
    }
    this.lastStreamId = syn.streamId;
    if (this.validate(headers) !== undefined) {
      this.resetStream(syn.streamId);
      return;
    }
    const stream = new SpdyStream(syn.streamId, headers, this);
    this.streams.set(syn.streamId, stream);
    const block = await this.compressor.compress({});
    await this.send(encodeControlFrame(FrameType.SynReply, 0, streamHeadersPayload(syn.streamId, block)));
    if ((flags & FLAG_FIN) !== 0) stream.receive(Buffer.alloc(0), true);
    this.emit('stream', stream);
  }
}
