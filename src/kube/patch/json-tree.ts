// Prototype-safe helpers over parsed JSON for the patch engines. A request body parsed by
// JSON.parse can carry an own key named "__proto__"; assigning such a key with `o[k] = v` would
// replace the object's prototype instead of storing data, and reading `o[k]` can return inherited
// members (`constructor`, `toString`). Every read and write here goes through own properties only.
// JsonObject allows `undefined` members for optional fields; they count as absent.
import type { JsonObject, JsonValue } from '../types.ts';

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasKey(o: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

/** The own member `key`, or undefined when absent. */
export function getKey(o: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

export function setKey(o: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    o[key] = value;
  }
}

export function deleteKey(o: JsonObject, key: string): void {
  if (Object.prototype.hasOwnProperty.call(o, key)) delete o[key];
}

/** Own keys with a defined value, in insertion order. */
export function keysOf(o: JsonObject): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

export function cloneJson<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => cloneJson(x)) as T;
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const k of keysOf(v)) setKey(out, k, cloneJson(v[k] as JsonValue));
  return out as T;
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const ak = keysOf(a);
  if (ak.length !== keysOf(b).length) return false;
  return ak.every((k) => hasKey(b, k) && jsonEqual(a[k] as JsonValue, b[k] as JsonValue));
}
