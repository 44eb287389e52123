// Small accessors over untyped JSON. Built-in defaulting and validation read Go structs upstream;
// here the same fields arrive as plain JSON where any level may be missing, null or mistyped, so
// every read goes through these guards instead of casts.
import type { JsonObject, JsonValue } from '../types.ts';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object at `key`, or undefined when absent, null or not an object. */
export function obj(parent: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = parent?.[key];
  return isObject(v) ? v : undefined;
}

/** The object at `key`, created (replacing null or a non-object) when missing. */
export function ensureObj(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

export function arr(parent: JsonObject | undefined, key: string): JsonValue[] | undefined {
  const v = parent?.[key];
  return Array.isArray(v) ? v : undefined;
}

/** The object items of the list at `key` (non-objects are skipped: schema errors are not ours). */
export function objects(parent: JsonObject | undefined, key: string): JsonObject[] {
  return (arr(parent, key) ?? []).filter(isObject);
}

export function str(parent: JsonObject | undefined, key: string): string | undefined {
  const v = parent?.[key];
  return typeof v === 'string' ? v : undefined;
}

export function num(parent: JsonObject | undefined, key: string): number | undefined {
  const v = parent?.[key];
  return typeof v === 'number' ? v : undefined;
}

export function strings(parent: JsonObject | undefined, key: string): string[] {
  return (arr(parent, key) ?? []).filter((v): v is string => typeof v === 'string');
}

/** A map[string]string field; non-string values are dropped. */
export function stringMap(parent: JsonObject | undefined, key: string): Record<string, string> | undefined {
  const o = obj(parent, key);
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Go's nil pointer: the JSON field is absent or null. */
export function isNil(parent: JsonObject, key: string): boolean {
  return parent[key] === undefined || parent[key] === null;
}

/** Go's zero string: absent, null or "". */
export function isEmptyString(parent: JsonObject, key: string): boolean {
  const v = parent[key];
  return v === undefined || v === null || v === '';
}

/** Go's zero int: absent, null or 0. */
export function isZeroInt(parent: JsonObject, key: string): boolean {
  const v = parent[key];
  return v === undefined || v === null || v === 0;
}

export function setIfNil(parent: JsonObject, key: string, value: JsonValue): void {
  if (isNil(parent, key)) parent[key] = value;
}

export function setIfEmpty(parent: JsonObject, key: string, value: string): void {
  if (isEmptyString(parent, key)) parent[key] = value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => deepEqual(ao[k], bo[k]));
}

/**
 * Equality the way apiequality.Semantic compares decoded Go structs: a nil pointer, an empty
 * slice or map and an absent field all decode to "nothing", so they compare equal.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return deepEqual(normalizeEmpty(a), normalizeEmpty(b));
}

function normalizeEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalizeEmpty);
  if (v === null) return undefined;
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const n = normalizeEmpty(x);
      if (n !== undefined) out[k] = n;
    }
    return out;
  }
  return v;
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

export function sortedKeys(o: JsonObject | Record<string, unknown> | undefined): string[] {
  return o ? Object.keys(o).sort() : [];
}
