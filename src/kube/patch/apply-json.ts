// Small JSON helpers shared by server-side apply. `goJson` exists because several strings that
// clients read back byte for byte (fieldsV1 keys such as `k:{"name":"x"}`, manager identifiers,
// the last-applied annotation) are produced by Go's encoding/json in kube-apiserver: object keys
// sorted, and `<`, `>`, `&`, U+2028, U+2029 escaped.
import type { JsonObject, JsonValue } from '../types.ts';

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ak = presentKeys(a);
    if (ak.length !== presentKeys(b).length) return false;
    return ak.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Keys whose value is not `undefined` (JsonObject allows optional members). */
export function presentKeys(o: JsonObject): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

export function clone<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}

const goEscapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** JSON as Go's encoding/json writes it: sorted object keys, HTML-safe escaping. */
export function goJson(v: JsonValue): string {
  return JSON.stringify(sortKeys(v)).replace(/[<>&\u2028\u2029]/g, (c) => goEscapes[c]);
}

function sortKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of presentKeys(v).sort(compareStrings)) out[k] = sortKeys(v[k] as JsonValue);
  return out;
}

/** Go orders strings by UTF-8 bytes, which is code point order, not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}
