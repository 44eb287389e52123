// Builds protobuf bytes for the tests with protobufjs' Writer, independent of our decoder.
import protobuf from 'protobufjs';

/** A string, a varint (number/boolean), raw bytes or an embedded message (also bytes). */
export type Value = string | number | boolean | Uint8Array;
export type Field = [number, Value];

/** One message from its fields, in the given order (repeat a number for repeated fields). */
export function msg(...fields: Field[]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const [num, value] of fields) {
    if (typeof value === 'string') w.uint32((num << 3) | 2).string(value);
    else if (typeof value === 'number') w.uint32(num << 3).int64(value);
    else if (typeof value === 'boolean') w.uint32(num << 3).bool(value);
    else w.uint32((num << 3) | 2).bytes(value);
  }
  return w.finish();
}

/** A map<string, V> entry. */
export function entry(key: string, value: Value): Uint8Array {
  return msg([1, key], [2, value]);
}

/** Map fields from an object: one entry per key. */
export function mapFields(num: number, obj: Record<string, Value>): Field[] {
  return Object.entries(obj).map(([k, v]): Field => [num, entry(k, v)]);
}

/** `k8s\0` + runtime.Unknown{typeMeta, raw}, as client-go's protobuf serializer writes it. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra: Field[] = []): Buffer {
  const unknown = msg([1, msg([1, apiVersion], [2, kind])], [2, raw], [3, ''], [4, ''], ...extra);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

export function meta(name: string, more: Field[] = []): Uint8Array {
  return msg([1, name], ...more);
}

/** A Time {seconds, nanos}. */
export function time(iso: string, nanos = 0): Uint8Array {
  return msg([1, Math.floor(Date.parse(iso) / 1000)], [2, nanos]);
}
