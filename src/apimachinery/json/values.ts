// Guards and copies for untyped JSON. Objects of every kind, custom ones included, travel as plain
// JSON, where any level may be missing, null or of the wrong type.
import type { JsonObject } from '../meta/json-types.ts';

/** A JSON object: not null, not an array. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A deep copy as JSON carries it: `undefined` members are dropped, and an own `__proto__` key stays
 * an own key (JSON.parse defines it as data), so copying a request body cannot change a prototype.
 */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Whether `key` is an own member with a defined value (inherited members such as `constructor` are not). */
export function hasKey(o: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

/** Own keys with a defined value, in insertion order. */
export function presentKeys(o: JsonObject): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}
