// Equality of JSON values. Members whose value is `undefined` count as absent everywhere: JSON
// drops them, and typed objects use them for unset optional fields.
import { isObject } from './values.ts';

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Structural equality; key order does not matter, only own members are compared. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/**
 * Equality the way apiequality.Semantic compares decoded Go structs: a nil pointer, an empty
 * slice or map and an absent field all decode to "nothing", so they compare equal. An empty
 * object stays a value (a pointer to an empty struct is not nil).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return deepEqual(normalizeEmpty(a), normalizeEmpty(b));
}

function normalizeEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalizeEmpty);
  if (v === null) return undefined;
  if (typeof v === 'object') {
    // No prototype: a "__proto__" member is then data, not a prototype change.
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const n = normalizeEmpty(x);
      if (n !== undefined) out[k] = n;
    }
    return out;
  }
  return v;
}

/**
 * semanticEqual for views built from unstructured JSON, where a map that is present but empty and
 * one that is absent mean the same: here an empty object also equals absent, null or an empty
 * list. Only a value that is itself empty counts; an object holding empty members is a value.
 * CRD validation compares versions with it to decide which fields all versions share.
 */
export function semanticEqualEmptyAsAbsent(a: unknown, b: unknown): boolean {
  const empty = (v: unknown): boolean =>
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (isObject(v) && Object.keys(v).length === 0);
  if (empty(a) && empty(b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => semanticEqualEmptyAsAbsent(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqualEmptyAsAbsent(ao[k], bo[k])) return false;
  return true;
}
