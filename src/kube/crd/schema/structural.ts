// The structural view of a CRD schema (kube's schema.Structural): the typed skeleton — type,
// properties, items, additionalProperties and the x-kubernetes-* extensions — that pruning,
// defaulting, list-type checks and server-side apply follow. Value validations (anyOf, enum, ...)
// stay in `raw`, the schema node as written.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject, asString } from '../json.ts';
import { isObject } from '../../../apimachinery/json/index.ts';

export interface Structural {
  type: string;
  format: string;
  nullable: boolean;
  /** The default value; absent when unset or `null` (kube treats both alike). */
  default?: JsonValue;
  properties?: Map<string, Structural>;
  items?: Structural;
  /** `additionalProperties`: a schema, or `true`/`false` without one. */
  additionalProperties?: { schema?: Structural; allows: boolean };
  xPreserveUnknownFields: boolean;
  xEmbeddedResource: boolean;
  xIntOrString: boolean;
  xListType?: string;
  xListMapKeys?: string[];
  xMapType?: string;
  raw: JsonObject;
}

export function toStructural(raw: JsonObject): Structural {
  const s: Structural = {
    type: asString(raw.type) ?? '',
    format: asString(raw.format) ?? '',
    nullable: raw.nullable === true,
    xPreserveUnknownFields: raw['x-kubernetes-preserve-unknown-fields'] === true,
    xEmbeddedResource: raw['x-kubernetes-embedded-resource'] === true,
    xIntOrString: raw['x-kubernetes-int-or-string'] === true,
    raw,
  };
  if (raw.default !== undefined && raw.default !== null) s.default = raw.default;
  const props = asObject(raw.properties);
  if (props && Object.keys(props).length > 0) {
    s.properties = new Map();
    for (const [k, v] of Object.entries(props)) s.properties.set(k, toStructural(asObject(v) ?? {}));
  }
  if (isObject(raw.items)) s.items = toStructural(raw.items);
  const ap = raw.additionalProperties;
  if (typeof ap === 'boolean') s.additionalProperties = { allows: ap };
  else if (isObject(ap)) s.additionalProperties = { allows: true, schema: toStructural(ap) };
  const listType = asString(raw['x-kubernetes-list-type']);
  if (listType !== undefined) s.xListType = listType;
  const keys = asArray(raw['x-kubernetes-list-map-keys']);
  if (keys) s.xListMapKeys = keys.filter((k): k is string => typeof k === 'string');
  const mapType = asString(raw['x-kubernetes-map-type']);
  if (mapType !== undefined) s.xMapType = mapType;
  return s;
}

/** The schema that applies to the value under `k` of an object described by `s`. */
export function fieldSchema(s: Structural | undefined, k: string): Structural | undefined {
  if (!s) return undefined;
  return s.properties?.get(k) ?? s.additionalProperties?.schema;
}
