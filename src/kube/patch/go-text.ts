// Renders decoded JSON the way kube-apiserver's Go code prints it in patch error messages: `%v`
// of an unstructured value, the reflect type name of a decoded value, and the JSON kind named by
// encoding/json's "cannot unmarshal X into Go value of type Y" errors.
import type { JsonValue } from '../../apimachinery/meta/index.ts';

import { isObject, presentKeys } from '../../apimachinery/json/index.ts';

/** The Go type encoding/json decodes `v` into (integers keep int64, as kube decodes them). */
export function goTypeName(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** The JSON kind encoding/json names in an UnmarshalTypeError. */
export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'string';
  }
}

/** fmt's `%v`: maps as `map[k:v ...]` with sorted keys, slices as `[a b]`, nil as `<nil>`. */
export function goValue(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const keys = presentKeys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  return String(v);
}
