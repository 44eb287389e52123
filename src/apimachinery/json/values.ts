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
  if (v === undefined) return v;
  // What has no JSON form (a function, a symbol, a bigint) fails or vanishes as JSON would have it.
  if (droppedByJson(v) || typeof v === 'bigint') return viaJsonText(v);
  return copyJson(v) as T;
}

/**
 * The copy JSON.parse(JSON.stringify(v)) makes, without the text in between (several times
 * faster on a stored object, and the API server copies one on every write): non-finite numbers
 * become null, members JSON drops are dropped (null in arrays), anything with a toJSON or a class
 * of its own goes through the text.
 */
function copyJson(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? v + 0 : null;
  if (typeof v === 'bigint') return viaJsonText(v);
  if (typeof v !== 'object' || v === null) return v;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return viaJsonText(v);
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = droppedByJson(v[i]) ? null : copyJson(v[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return viaJsonText(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (droppedByJson(x)) continue;
    // An own "__proto__" member stays data, as JSON.parse defines it.
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: copyJson(x), enumerable: true, writable: true, configurable: true });
    else out[k] = copyJson(x);
  }
  return out;
}

function droppedByJson(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function viaJsonText<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Whether `key` is an own member with a defined value (inherited members such as `constructor` are not). */
export function hasKey(o: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

/** Own keys with a defined value, in insertion order. */
export function presentKeys(o: JsonObject): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}
