// Prototype-safe helpers over parsed JSON for the patch engines. A request body parsed by
// JSON.parse can carry an own key named "__proto__"; assigning such a key with `o[k] = v` would
// replace the object's prototype instead of storing data, and reading `o[k]` can return inherited
// members (`constructor`, `toString`). Every read and write here goes through own properties only.
// JsonObject allows `undefined` members for optional fields; they count as absent.
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';

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
