// kube decodes the metadata of a custom resource (and of every embedded resource) into a real
// ObjectMeta and writes it back: unknown fields vanish, empty ones are omitted (omitempty),
// timestamps are normalized to RFC 3339 seconds in UTC. This reproduces that round trip on JSON,
// reporting unknown fields (for fieldValidation) and fields of the wrong type (which kube refuses
// on writes and drops when reading).
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';

export interface MetaResult {
  /** The normalized metadata; undefined when `metadata` is not an object at all. */
  meta?: JsonObject;
  /** Dropped unknown fields, e.g. `metadata.foo`, `spec.template.metadata.ownerReferences[0].bar`. */
  unknown: string[];
  /** Fields dropped for having the wrong type, in encoding/json's words. */
  invalid: string[];
}

/** A value encoding/json refuses: its JSON kind, the Go type wanted, and where (struct, field path). */
class Bad {
  constructor(
    readonly kind: string,
    readonly goType: string,
    readonly struct = '',
    readonly field = '',
  ) {}
}

type Decoder = (v: JsonValue, path: string, res: MetaResult) => JsonValue | undefined | Bad;

function jsonKind(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function scalar(goType: string, ok: (v: JsonValue) => boolean, nullValue: JsonValue | undefined): Decoder {
  return (v) => (v === null ? nullValue : ok(v) ? v : new Bad(jsonKind(v), goType));
}

const str = scalar('string', (v) => typeof v === 'string', '');
const uid = scalar('types.UID', (v) => typeof v === 'string', '');
const bool = scalar('bool', (v) => typeof v === 'boolean', undefined);
const int64 = scalar('int64', (v) => typeof v === 'number' && Number.isInteger(v), undefined);

/** metav1.Time: RFC 3339 in, whole seconds in UTC out. */
const time: Decoder = (v) => {
  if (v === null) return undefined;
  if (typeof v !== 'string') return new Bad(jsonKind(v), 'string');
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(v);
  const t = m ? Date.parse(v) : NaN;
  if (Number.isNaN(t)) return new Bad('string', 'v1.Time');
  return formatTime(t);
};

const stringMap: Decoder = (v, path, res) => {
  if (v === null) return undefined;
  if (!isObject(v)) return new Bad(jsonKind(v), 'map[string]string');
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    const d = str(x, path, res);
    if (d instanceof Bad) return d;
    out[k] = d as string;
  }
  return out;
};

const stringList: Decoder = (v, path, res) => {
  if (v === null) return undefined;
  if (!Array.isArray(v)) return new Bad(jsonKind(v), '[]string');
  const out: JsonValue[] = [];
  for (const x of v) {
    const d = str(x, path, res);
    if (d instanceof Bad) return d;
    out.push(d as string);
  }
  return out;
};

/** How encoding/json writes a field back: omitempty, a pointer (omitted only when unset), or always. */
type Emit = 'omitempty' | 'pointer' | 'always';
type Fields = Record<string, [Decoder, Emit]>;

function struct(name: string, fields: Fields): Decoder {
  return (v, path, res) => {
    if (v === null) return undefined;
    if (!isObject(v)) return new Bad(jsonKind(v), `v1.${name}`);
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      const f = fields[k];
      if (!f) {
        res.unknown.push(`${path}.${k}`);
        continue;
      }
      const d = f[0](x, `${path}.${k}`, res);
      if (d instanceof Bad) return d.struct ? d : new Bad(d.kind, d.goType, name, k);
      if (d !== undefined) out[k] = d;
    }
    for (const [k, [, emit]] of Object.entries(fields)) {
      if (emit === 'omitempty' && isEmpty(out[k])) delete out[k];
      else if (emit === 'always' && out[k] === undefined) out[k] = '';
    }
    return out;
  };
}

function list(item: Decoder, goType: string): Decoder {
  return (v, path, res) => {
    if (v === null) return undefined;
    if (!Array.isArray(v)) return new Bad(jsonKind(v), goType);
    const out: JsonValue[] = [];
    for (let i = 0; i < v.length; i++) {
      const d = item(v[i], `${path}[${i}]`, res);
      if (d instanceof Bad) return d;
      out.push(d === undefined ? null : d);
    }
    return out;
  };
}

const anyObject: Decoder = (v) => (v === null ? undefined : isObject(v) ? v : new Bad(jsonKind(v), 'v1.FieldsV1'));

const ownerReference = struct('OwnerReference', {
  apiVersion: [str, 'always'],
  kind: [str, 'always'],
  name: [str, 'always'],
  uid: [uid, 'always'],
  controller: [bool, 'pointer'],
  blockOwnerDeletion: [bool, 'pointer'],
});

const managedFieldsEntry = struct('ManagedFieldsEntry', {
  manager: [str, 'omitempty'],
  operation: [str, 'omitempty'],
  apiVersion: [str, 'omitempty'],
  time: [time, 'pointer'],
  fieldsType: [str, 'omitempty'],
  fieldsV1: [anyObject, 'pointer'],
  subresource: [str, 'omitempty'],
});

const OBJECT_META: Record<string, Decoder> = {
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid,
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: list(ownerReference, '[]v1.OwnerReference'),
  finalizers: stringList,
  managedFields: list(managedFieldsEntry, '[]v1.ManagedFieldsEntry'),
};

function isEmpty(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === '' ||
    v === 0 ||
    (Array.isArray(v) && v.length === 0) ||
    (isObject(v) && Object.keys(v).length === 0)
  );
}

/** Round-trips `metadata` through ObjectMeta; `path` is where it sits (`metadata`, `spec.template.metadata`). */
export function coerceObjectMeta(metadata: unknown, path: string): MetaResult {
  const res: MetaResult = { unknown: [], invalid: [] };
  if (!isObject(metadata)) {
    res.invalid.push(`invalid metadata: expected object, got ${jsonKind((metadata ?? null) as JsonValue)}`);
    return res;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (v === undefined) continue;
    const field = OBJECT_META[k];
    if (!field) {
      res.unknown.push(`${path}.${k}`);
      continue;
    }
    const sub: MetaResult = { unknown: [], invalid: [] };
    const d = field(v, `${path}.${k}`, sub);
    if (d instanceof Bad) {
      const where = d.struct ? `${d.struct}.${k}.${d.field}` : `ObjectMeta.${k}`;
      res.invalid.push(`json: cannot unmarshal ${d.kind} into Go struct field ${where} of type ${d.goType}`);
      continue;
    }
    res.unknown.push(...sub.unknown);
    // deletionGracePeriodSeconds is a pointer: 0 is a value, not an empty field.
    if (d !== undefined && (k === 'deletionGracePeriodSeconds' || !isEmpty(d))) out[k] = d;
  }
  res.meta = out;
  return res;
}
