// The errors kube's NewStructural raises while converting a schema: constructs a structural
// schema cannot represent. Most are also reported more precisely elsewhere; kube shows these only
// when nothing else is wrong.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject } from '../json.ts';
import { isObject, hasKey } from '../../../apimachinery/json/index.ts';

export function structuralInitError(s: JsonObject): string | undefined {
  if (typeof s.id === 'string' && s.id) return "OpenAPIV3Schema 'id' is not supported";
  if (typeof s.$schema === 'string' && s.$schema) return "OpenAPIV3Schema 'schema' is not supported";
  if (typeof s.$ref === 'string' && s.$ref) return "OpenAPIV3Schema '$ref' is not supported";
  if (Object.keys(asObject(s.patternProperties) ?? {}).length)
    return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (Object.keys(asObject(s.dependencies) ?? {}).length) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (hasKey(s, 'additionalItems') && s.additionalItems !== null)
    return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (Object.keys(asObject(s.definitions) ?? {}).length) return "OpenAPIV3Schema 'definitions' is not supported";
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  for (const k of ['not']) {
    const sub = asObject(s[k]);
    const e = sub && structuralInitError(sub);
    if (e) return e;
  }
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    for (const b of asArray(s[k]) ?? []) {
      const e = isObject(b) ? structuralInitError(b) : undefined;
      if (e) return e;
    }
  }
  if (Array.isArray(s.items) && s.items.length) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  if (isObject(s.items)) {
    const e = structuralInitError(s.items);
    if (e) return e;
  }
  for (const p of Object.values(asObject(s.properties) ?? {})) {
    const e = isObject(p) ? structuralInitError(p) : undefined;
    if (e) return e;
  }
  if (isObject(s.additionalProperties)) return structuralInitError(s.additionalProperties);
  return undefined;
}
