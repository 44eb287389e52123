// Messages whose JSON form is not an object of their fields: metav1.Time/MicroTime (RFC 3339
// strings), resource.Quantity (a string), intstr.IntOrString (a number or a string), FieldsV1 and
// RawExtension (embedded JSON), and the `[]string` wrappers such as authentication's ExtraValue.
import { formatMicroTime, formatTime } from '../../../apimachinery/time/index.ts';
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import { DecodeError, WIRE_BYTES, WIRE_VARINT, WireReader } from './wire.ts';

/** Returns undefined when the value is left out of the JSON (a zero Time, like Go's `null`). */
export type SpecialDecoder = (buf: Buffer, start: number, end: number) => JsonValue | undefined;

type Fields = Map<number, number | Buffer[]>;

/** Reads varint and length-delimited fields; anything else is skipped. */
function fields(buf: Buffer, start: number, end: number): Fields {
  const out: Fields = new Map();
  const r = new WireReader(buf, start, end);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (wire === WIRE_VARINT) out.set(field, r.varint());
    else if (wire === WIRE_BYTES) {
      const prev = out.get(field);
      const list = Array.isArray(prev) ? prev : [];
      list.push(r.bytes());
      out.set(field, list);
    } else r.skip(wire);
  }
  return out;
}

function num(f: Fields, n: number): number {
  const v = f.get(n);
  return typeof v === 'number' ? v : 0;
}

function str(f: Fields, n: number): string {
  const v = f.get(n);
  return Array.isArray(v) ? v[v.length - 1].toString('utf8') : '';
}

// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: what RFC 3339 (and Go's formatting) can express.
const MIN_SECONDS = -62135596800;
const MAX_SECONDS = 253402300799;

function timestamp(buf: Buffer, start: number, end: number, micro: boolean): string | undefined {
  const f = fields(buf, start, end);
  const seconds = num(f, 1);
  const nanos = num(f, 2);
  if (seconds === 0 && nanos === 0) return undefined;
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    throw new DecodeError(`timestamp seconds ${seconds} out of range`);
  }
  if (nanos < 0 || nanos > 999_999_999) throw new DecodeError(`timestamp nanos ${nanos} out of range`);
  return micro ? formatMicroTime(seconds * 1000, Math.floor(nanos / 1000)) : formatTime(seconds * 1000);
}

function embeddedJson(buf: Buffer, start: number, end: number, what: string): JsonValue | undefined {
  const raw = fields(buf, start, end).get(1);
  if (!Array.isArray(raw)) return undefined;
  const text = raw[raw.length - 1].toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new DecodeError(`${what} does not hold JSON`);
  }
}

export const SPECIAL: Record<string, SpecialDecoder> = {
  Time: (buf, start, end) => timestamp(buf, start, end, false),
  MicroTime: (buf, start, end) => timestamp(buf, start, end, true),
  // A zero Quantity marshals as "0" in Go.
  Quantity: (buf, start, end) => str(fields(buf, start, end), 1) || '0',
  IntOrString: (buf, start, end) => {
    const f = fields(buf, start, end);
    return num(f, 1) === 1 ? str(f, 3) : num(f, 2);
  },
  FieldsV1: (buf, start, end) => embeddedJson(buf, start, end, 'FieldsV1'),
  RawExtension: (buf, start, end) => embeddedJson(buf, start, end, 'RawExtension'),
  StringList: (buf, start, end) => {
    const items = fields(buf, start, end).get(1);
    return Array.isArray(items) ? items.map((b) => b.toString('utf8')) : [];
  },
};
