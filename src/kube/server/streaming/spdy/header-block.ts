// SPDY/3 header blocks: `u32 count, {u32 len, name, u32 len, value}` with lower-case names and
// multiple values joined by NUL, zlib-compressed with the SPDY/3 dictionary. Each direction of a
// connection is ONE zlib stream, sync-flushed after every block, so blocks must be compressed and
// decompressed in the order they travel; the codecs below keep that order.
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.ts';

/** Header names (lower case) to their values, in the order they were written. */
export type SpdyHeaders = Record<string, string[]>;

export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const names = Object.keys(headers);
  const parts: Buffer[] = [u32(names.length)];
  for (const name of names) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(headers[name].join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  let at = 0;
  const take = (length: number): Buffer => {
    if (at + length > block.length) throw new Error('truncated SPDY header block');
    const out = block.subarray(at, at + length);
    at += length;
    return out;
  };
  const count = take(4).readUInt32BE(0);
  const headers: SpdyHeaders = {};
  for (let i = 0; i < count; i++) {
    const name = take(take(4).readUInt32BE(0)).toString('utf8').toLowerCase();
    const values = take(take(4).readUInt32BE(0)).toString('utf8').split('\0');
    headers[name] = [...(headers[name] ?? []), ...values];
  }
  return headers;
}

/** The first value of a header, or "" (Go's http.Header.Get). */
export function headerValue(headers: SpdyHeaders, name: string): string {
  return headers[name.toLowerCase()]?.[0] ?? '';
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** Runs one block through a persistent zlib stream and collects what it produced. */
class OrderedZlib {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly z: Deflate | Inflate) {
    // Paused mode: the output of a write is in the read buffer when its callback runs.
    z.pause();
  }

  run(input: Buffer): Promise<Buffer> {
    const result = this.tail.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          this.z.write(input, (err) => {
            if (err) return reject(err);
            const chunks: Buffer[] = [];
            for (let c = this.z.read() as Buffer | null; c !== null; c = this.z.read() as Buffer | null) chunks.push(c);
            resolve(Buffer.concat(chunks));
          });
        }),
    );
    this.tail = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.z.destroy();
  }
}

export class HeaderCompressor {
  private readonly zlib = new OrderedZlib(
    createDeflate({ level: 9, dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH }),
  );

  compress(headers: SpdyHeaders): Promise<Buffer> {
    return this.zlib.run(encodeHeaderBlock(headers));
  }

  close(): void {
    this.zlib.close();
  }
}

export class HeaderDecompressor {
  private readonly zlib = new OrderedZlib(
    createInflate({ dictionary: SPDY3_DICTIONARY, flush: constants.Z_SYNC_FLUSH }),
  );

  async decompress(compressed: Buffer): Promise<SpdyHeaders> {
    return decodeHeaderBlock(await this.zlib.run(compressed));
  }

  close(): void {
    this.zlib.close();
  }
}
