// Small accessors over untyped JSON. Built-in defaulting and validation read Go structs upstream;
// here the same fields arrive as plain JSON where any level may be missing, null or mistyped, so
// every read goes through these guards instead of casts.
import { isObject } from '../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';

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

export function sortedKeys(o: JsonObject | Record<string, unknown> | undefined): string[] {
  return o ? Object.keys(o).sort() : [];
}
