// A bounds-checked protobuf wire reader. Bodies come from the network, so every length and
// varint is checked against the buffer and failures surface as a DecodeError (mapped to a 400
// by the caller) instead of a RangeError or a silent read past the end.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export interface Tag {
  field: number;
  wire: number;
}

export class WireReader {
  readonly buf: Buffer;
  readonly end: number;
  pos: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  tag(): Tag {
    const key = this.varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field < 1 || field > 0x1fffffff) throw new DecodeError(`invalid field number ${field}`);
    return { field, wire };
  }

  /**
   * A varint as a JS number. int32 negatives arrive as 10-byte two's-complement varints, so the
   * value is assembled from two 32-bit halves and sign-converted; past 2^53 precision is lost,
   * which no field we decode can reach.
   */
  varint(): number {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new DecodeError('unexpected end of data in varint');
      const b = this.buf[this.pos++];
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if ((b & 0x80) === 0) {
        lo >>>= 0;
        hi >>>= 0;
        if (hi & 0x80000000) return -((~hi >>> 0) * 0x100000000 + (~lo >>> 0) + 1);
        return hi * 0x100000000 + lo;
      }
    }
    throw new DecodeError('varint is longer than 10 bytes');
  }

  /** The [start, end) of a length-delimited payload, advancing past it. */
  span(): [number, number] {
    const len = this.varint();
    if (len < 0 || len > this.end - this.pos) {
      throw new DecodeError(`length ${len} at offset ${this.pos} exceeds the remaining ${this.end - this.pos} bytes`);
    }
    const start = this.pos;
    this.pos += len;
    return [start, this.pos];
  }

  bytes(): Buffer {
    const [start, end] = this.span();
    return this.buf.subarray(start, end);
  }

  string(): string {
    return this.bytes().toString('utf8');
  }

  fixed64(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  fixed32(): number {
    this.need(4);
    const v = this.buf.readFloatLE(this.pos);
    this.pos += 4;
    return v;
  }

  /** Skips one value; groups (wire types 3 and 4) are not used by Kubernetes and are refused. */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.need(8);
        this.pos += 8;
        return;
      case WIRE_BYTES:
        this.span();
        return;
      case WIRE_FIXED32:
        this.need(4);
        this.pos += 4;
        return;
      default:
        throw new DecodeError(`unsupported wire type ${wire}`);
    }
  }

  private need(n: number): void {
    if (this.end - this.pos < n) throw new DecodeError('unexpected end of data');
  }
}

/**
 * Whether a payload carries only zero values. gogo-protobuf writes every non-pointer field, so
 * fields we have no table for (an empty status, a newer struct) arrive as `0a 00`-like noise that
 * must not count as data. A string that happens to parse as zero fields is misjudged as empty;
 * that only hides it from the unknown-field report.
 */
export function isZeroPayload(buf: Buffer, start: number, end: number, depth = 0): boolean {
  if (start === end) return true;
  if (depth > 32) return false;
  const r = new WireReader(buf, start, end);
  try {
    while (!r.done()) {
      const { wire } = r.tag();
      if (wire === WIRE_VARINT) {
        if (r.varint() !== 0) return false;
      } else if (wire === WIRE_BYTES) {
        const [s, e] = r.span();
        if (!isZeroPayload(buf, s, e, depth + 1)) return false;
      } else return false;
    }
    return true;
  } catch {
    return false;
  }
}
