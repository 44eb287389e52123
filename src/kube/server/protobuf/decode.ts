// Table-driven decoding of a Kubernetes protobuf message into the JSON object Go's encoding/json
// would produce for the same Go struct, so the rest of the server sees what a JSON client sends.
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { isScalar, parseMessage, type FieldSpec, type MessageSpec, type TableSource } from './schema.ts';
import { SPECIAL } from './special.ts';
import { META } from './tables-meta.ts';
import { CORE } from './tables-core.ts';
import { POD } from './tables-pod.ts';
import { VOLUMES } from './tables-volumes.ts';
import { APIS } from './tables-apis.ts';
import { DecodeError, isZeroPayload, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT, WireReader } from './wire.ts';

const SOURCES: TableSource[] = [META, CORE, POD, VOLUMES, APIS];

let registry: Map<string, MessageSpec> | undefined;

/** Every table, parsed once; throws on a table that names a type nobody defines. */
export function messages(): Map<string, MessageSpec> {
  if (registry) return registry;
  const out = new Map<string, MessageSpec>();
  for (const source of SOURCES) {
    for (const [name, line] of Object.entries(source)) {
      if (out.has(name)) throw new Error(`protobuf table ${name} defined twice`);
      out.set(name, parseMessage(name, line));
    }
  }
  for (const [name, spec] of out) {
    for (const f of spec.values()) {
      if (!isScalar(f.type) && !out.has(f.type) && !SPECIAL[f.type]) {
        throw new Error(`protobuf table ${name}.${f.name} refers to unknown type ${f.type}`);
      }
    }
  }
  registry = out;
  return out;
}

export interface DecodeState {
  /** Paths of fields that carried data but have no table entry. */
  unknown: string[];
}

export function decodeMessage(
  type: string,
  buf: Buffer,
  start: number,
  end: number,
  path: string,
  state: DecodeState,
  target: JsonObject = {},
): JsonObject {
  const spec = messages().get(type);
  if (!spec) throw new DecodeError(`no table for message ${type}`);
  const r = new WireReader(buf, start, end);
  while (!r.done()) {
    const { field, wire } = r.tag();
    const f = spec.get(field);
    if (!f) {
      skipUnknown(r, wire, field, path, state);
      continue;
    }
    const at = path ? `${path}.${f.name}` : f.name;
    if (f.map) {
      if (wire !== WIRE_BYTES) throw wrongWire(at, wire);
      const [s, e] = r.span();
      const [key, value] = decodeEntry(f, buf, s, e, at, state);
      const obj = (target[f.name] ??= {}) as JsonObject;
      if (value !== undefined) obj[key] = value;
    } else if (f.repeated) {
      const list = (target[f.name] ??= []) as JsonValue[];
      if (wire === WIRE_BYTES && isPackable(f.type)) {
        const [s, e] = r.span();
        const packed = new WireReader(buf, s, e);
        while (!packed.done()) list.push(readScalar(packed, f, packedWire(f.type), at));
      } else {
        const v = readValue(r, wire, f, `${at}[${list.length}]`, state);
        list.push(v === undefined ? null : v);
      }
    } else if (f.inline) {
      if (wire !== WIRE_BYTES) throw wrongWire(at, wire);
      const [s, e] = r.span();
      decodeMessage(f.type, buf, s, e, path, state, target);
    } else {
      const existing = target[f.name];
      if (wire === WIRE_BYTES && messages().has(f.type) && isObject(existing)) {
        // A repeated occurrence of a message field merges into the first, as protobuf specifies.
        const [s, e] = r.span();
        decodeMessage(f.type, buf, s, e, at, state, existing);
        continue;
      }
      const v = readValue(r, wire, f, at, state);
      if (v === undefined || (isZeroScalar(f.type, v) && !f.keepZero)) delete target[f.name];
      else target[f.name] = v;
    }
  }
  return target;
}

function readValue(r: WireReader, wire: number, f: FieldSpec, path: string, state: DecodeState): JsonValue | undefined {
  if (isScalar(f.type)) return readScalar(r, f, wire, path);
  if (wire !== WIRE_BYTES) throw wrongWire(path, wire);
  const [s, e] = r.span();
  const special = SPECIAL[f.type];
  if (special) return special(r.buf, s, e);
  return decodeMessage(f.type, r.buf, s, e, path, state);
}

function readScalar(r: WireReader, f: FieldSpec, wire: number, path: string): JsonValue {
  const expected = { s: WIRE_BYTES, y: WIRE_BYTES, i: WIRE_VARINT, b: WIRE_VARINT, d: WIRE_FIXED64, f: WIRE_FIXED32 }[
    f.type as 's' | 'y' | 'i' | 'b' | 'd' | 'f'
  ];
  if (wire !== expected) throw wrongWire(path, wire);
  switch (f.type) {
    case 's':
      return r.string();
    case 'y':
      return r.bytes().toString('base64');
    case 'i':
      return r.varint();
    case 'b':
      return r.varint() !== 0;
    case 'd':
      return r.fixed64();
    default:
      return r.fixed32();
  }
}

function decodeEntry(
  f: FieldSpec,
  buf: Buffer,
  start: number,
  end: number,
  path: string,
  state: DecodeState,
): [string, JsonValue | undefined] {
  let key = '';
  let value: JsonValue | undefined;
  let seen = false;
  const r = new WireReader(buf, start, end);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1) {
      if (wire !== WIRE_BYTES) throw wrongWire(`${path} key`, wire);
      key = r.string();
    } else if (field === 2) {
      value = readValue(r, wire, f, `${path}[${JSON.stringify(key)}]`, state);
      seen = true;
    } else r.skip(wire);
  }
  if (!seen) value = zeroValue(f.type, buf);
  return [key, value];
}

/** The JSON of a map value the entry left out: Go decodes it as the type's zero value. */
function zeroValue(type: string, buf: Buffer): JsonValue | undefined {
  switch (type) {
    case 's':
    case 'y':
      return '';
    case 'i':
    case 'd':
    case 'f':
      return 0;
    case 'b':
      return false;
  }
  const special = SPECIAL[type];
  return special ? special(buf, 0, 0) : {};
}

function skipUnknown(r: WireReader, wire: number, field: number, path: string, state: DecodeState): void {
  let zero: boolean;
  if (wire === WIRE_VARINT) zero = r.varint() === 0;
  else if (wire === WIRE_BYTES) {
    const [s, e] = r.span();
    zero = isZeroPayload(r.buf, s, e);
  } else {
    r.skip(wire);
    zero = false;
  }
  if (!zero) state.unknown.push(path ? `${path}#${field}` : `#${field}`);
}

function isPackable(type: string): boolean {
  return type === 'i' || type === 'b' || type === 'd' || type === 'f';
}

function packedWire(type: string): number {
  return type === 'd' ? WIRE_FIXED64 : type === 'f' ? WIRE_FIXED32 : WIRE_VARINT;
}

function isZeroScalar(type: string, v: JsonValue): boolean {
  return isScalar(type) && (v === '' || v === 0 || v === false);
}

function wrongWire(path: string, wire: number): DecodeError {
  return new DecodeError(`field ${path} has unexpected wire type ${wire}`);
}
