// Structural defaulting (kube's PruneNonNullableNullsWithoutDefaults followed by Default): a
// `null` where the schema neither allows null nor has a default is dropped, missing or null fields
// with a `default` get a copy of it, recursively into properties, array items and map values.
// Parts of the object without a schema (preserved unknown fields) are left alone.
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import { cloneJson, isObject } from '../../../apimachinery/json/index.ts';
import { fieldSchema } from './structural.ts';
import type { Structural } from './structural.ts';

function isNonNullableNull(x: unknown, s: Structural | undefined): boolean {
  return x === null && s !== undefined && !s.nullable;
}

export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  if (isObject(x)) {
    for (const [k, v] of Object.entries(x)) {
      const sub = fieldSchema(s, k);
      if (isNonNullableNull(v, sub) && sub?.default === undefined) delete x[k];
      else pruneNonNullableNullsWithoutDefaults(v, sub);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s?.items);
  }
}

export function applyStructuralDefaults(x: unknown, s: Structural | undefined): void {
  if (!s) return;
  if (isObject(x)) {
    for (const [k, prop] of s.properties ?? []) {
      if (prop.default === undefined) continue;
      if (!(k in x) || x[k] === undefined || isNonNullableNull(x[k], prop)) x[k] = cloneJson(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = s.properties?.get(k);
      if (prop) {
        applyStructuralDefaults(x[k], prop);
      } else if (s.additionalProperties) {
        const ap = s.additionalProperties.schema;
        if (isNonNullableNull(x[k], ap) && ap?.default !== undefined) x[k] = cloneJson(ap.default);
        applyStructuralDefaults(x[k], ap);
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v: JsonValue, i) => {
      if (isNonNullableNull(v, s.items) && s.items?.default !== undefined) x[i] = cloneJson(s.items.default);
      applyStructuralDefaults(x[i], s.items);
    });
  }
}
