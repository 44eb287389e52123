// SPDY/3.1 framing (SPDY/3 draft section 2.2; what moby/spdystream reads and writes): control
// frames `1 | version(15) | type(16) | flags(8) | length(24) | payload` and data frames
// `0 | stream id(31) | flags(8) | length(24) | data`. Header blocks inside SYN_STREAM, SYN_REPLY
// and HEADERS stay compressed here; header-block.ts owns their content.

export const SPDY_VERSION = 3;

export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

export const FLAG_FIN = 0x01;

/** RST_STREAM status codes; spdystream resets with CANCEL. */
export const RstStatus = { ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, Cancel: 5, InternalError: 6 } as const;

export const MAX_DATA_LENGTH = 0xffffff;

export type Frame =
  | { control: false; streamId: number; flags: number; data: Buffer }
  | { control: true; version: number; type: number; flags: number; payload: Buffer };

export function encodeDataFrame(streamId: number, flags: number, data: Buffer = Buffer.alloc(0)): Buffer {
  if (data.length > MAX_DATA_LENGTH) throw new RangeError(`SPDY data frame of ${data.length} bytes`);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(streamId & 0x7fffffff, 0);
  header.writeUInt32BE((((flags & 0xff) << 24) | data.length) >>> 0, 4);
  return Buffer.concat([header, data]);
}

export function encodeControlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  header.writeUInt16BE(type, 2);
  header.writeUInt32BE((((flags & 0xff) << 24) | payload.length) >>> 0, 4);
  return Buffer.concat([header, payload]);
}

/** Cuts frames out of a byte stream that may split or join them anywhere. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Frame[] = [];
    while (this.buffered.length >= 8) {
      const length = this.buffered.readUInt32BE(4) & 0xffffff;
      if (this.buffered.length < 8 + length) break;
      const flags = this.buffered[4];
      const body = this.buffered.subarray(8, 8 + length);
      const first = this.buffered.readUInt32BE(0);
      if (first & 0x80000000) {
        frames.push({ control: true, version: (first >>> 16) & 0x7fff, type: first & 0xffff, flags, payload: body });
      } else {
        frames.push({ control: false, streamId: first & 0x7fffffff, flags, data: body });
      }
      this.buffered = this.buffered.subarray(8 + length);
    }
    return frames;
  }
}

export interface SynStream {
  streamId: number;
  associatedId: number;
  priority: number;
  slot: number;
  headerBlock: Buffer;
}

export function synStreamPayload(s: SynStream): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt32BE(s.streamId & 0x7fffffff, 0);
  fixed.writeUInt32BE(s.associatedId & 0x7fffffff, 4);
  fixed[8] = (s.priority & 0x7) << 5;
  fixed[9] = s.slot;
  return Buffer.concat([fixed, s.headerBlock]);
}

export function parseSynStream(payload: Buffer): SynStream {
  if (payload.length < 10) throw new Error('short SYN_STREAM frame');
  return {
    streamId: payload.readUInt32BE(0) & 0x7fffffff,
    associatedId: payload.readUInt32BE(4) & 0x7fffffff,
    priority: payload[8] >> 5,
    slot: payload[9],
    headerBlock: payload.subarray(10),
  };
}

/** SYN_REPLY and HEADERS: a stream id, then a header block. */
export function streamHeadersPayload(streamId: number, headerBlock: Buffer): Buffer {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(streamId & 0x7fffffff);
  return Buffer.concat([id, headerBlock]);
}

export function parseStreamHeaders(payload: Buffer): { streamId: number; headerBlock: Buffer } {
  if (payload.length < 4) throw new Error('short SPDY headers frame');
  return { streamId: payload.readUInt32BE(0) & 0x7fffffff, headerBlock: payload.subarray(4) };
}

/** RST_STREAM, GOAWAY and WINDOW_UPDATE: two 32-bit words. */
export function twoWordPayload(first: number, second: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(first & 0x7fffffff, 0);
  b.writeUInt32BE(second >>> 0, 4);
  return b;
}

export function parseTwoWords(payload: Buffer): [number, number] {
  if (payload.length < 8) throw new Error('short SPDY control frame');
  return [payload.readUInt32BE(0) & 0x7fffffff, payload.readUInt32BE(4)];
}

export function pingPayload(id: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(id >>> 0);
  return b;
}
