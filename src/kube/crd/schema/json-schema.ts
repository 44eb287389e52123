// Translates a CRD schema node (OpenAPI v3 with Kubernetes extensions) into the JSON Schema ajv
// runs. Where kube-openapi behaves differently from JSON Schema the translation makes ajv agree:
// `nullable` joins "null" to the types, int-or-string becomes integer|string, boolean exclusive
// bounds become numeric ones, unsupported formats are dropped. An `x-kube` note on every node keeps
// what the error messages need (kube's type list, the format and pattern as written).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asArray, asNumber, asObject, asString } from '../json.ts';
import { effectiveFormat } from './formats.ts';
import { isObject } from '../../../apimachinery/json/index.ts';

export const NOTE = 'x-kube';
/** Custom ajv keyword: kube's numeric range check for a type/format (int32, float, integers). */
export const NUMBER_RANGE = 'x-kube-number';
/** Custom ajv keyword: allOf that reports its own failure, as kube-openapi does. */
export const ALL_OF = 'x-kube-allof';

export interface KubeNote {
  /** The type list kube prints, e.g. "integer" or "integer,string". */
  type: string;
  /** The format kube validates after stripping unsupported ones ('' for none). */
  format: string;
  pattern?: string;
}

export type AjvSchema = Record<string, unknown>;

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const NUMERIC_LIMITS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'];

export function toJsonSchema(raw: JsonObject): AjvSchema {
  const out: AjvSchema = {};
  const declared = asString(raw.type) ?? '';
  const types = raw['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : declared ? [declared] : [];
  const format = effectiveFormat(asString(raw.format) ?? '', types);
  const note: KubeNote = { type: types.join(','), format };
  const pattern = asString(raw.pattern);
  if (pattern !== undefined) note.pattern = pattern;
  out[NOTE] = note;

  const ajvTypes = types.filter((t) => JSON_TYPES.has(t));
  if (ajvTypes.length > 0) {
    if (raw.nullable === true) ajvTypes.push('null');
    out.type = ajvTypes.length === 1 ? ajvTypes[0] : ajvTypes;
  }
  if (format && !['int32', 'int64', 'float', 'double'].includes(format))
    out.format = `k8s-${format.replaceAll('-', '')}`;
  if (types.length === 1 && (types[0] === 'integer' || (types[0] === 'number' && format === 'float'))) {
    out[NUMBER_RANGE] = { type: types[0], format };
  }

  const enumValues = asArray(raw.enum);
  if (enumValues) out.enum = enumValues;
  const max = asNumber(raw.maximum);
  if (max !== undefined) out[raw.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = max;
  const min = asNumber(raw.minimum);
  if (min !== undefined) out[raw.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = min;
  for (const k of NUMERIC_LIMITS) {
    const n = asNumber(raw[k]);
    if (n !== undefined && n >= 0) out[k] = n;
  }
  const multipleOf = asNumber(raw.multipleOf);
  if (multipleOf !== undefined && multipleOf > 0) out.multipleOf = multipleOf;
  if (pattern !== undefined) out.pattern = pattern;
  if (raw.uniqueItems === true) out.uniqueItems = true;
  const req = asArray(raw.required)?.filter((r): r is string => typeof r === 'string');
  if (req?.length) out.required = req;

  const props = asObject(raw.properties);
  if (props) {
    const translated: Record<string, AjvSchema> = {};
    for (const [k, v] of Object.entries(props)) translated[k] = toJsonSchema(asObject(v) ?? {});
    out.properties = translated;
  }
  if (isObject(raw.items)) out.items = toJsonSchema(raw.items);
  if (typeof raw.additionalProperties === 'boolean') out.additionalProperties = raw.additionalProperties;
  else if (isObject(raw.additionalProperties)) out.additionalProperties = toJsonSchema(raw.additionalProperties);

  const branches = (k: string) => asArray(raw[k])?.map((b) => toJsonSchema(asObject(b) ?? {}));
  const anyOf = branches('anyOf');
  if (anyOf?.length) out.anyOf = anyOf;
  const oneOf = branches('oneOf');
  if (oneOf?.length) out.oneOf = oneOf;
  const allOf = branches('allOf');
  if (allOf?.length) out[ALL_OF] = allOf;
  if (isObject(raw.not)) out.not = toJsonSchema(raw.not);
  return out;
}
