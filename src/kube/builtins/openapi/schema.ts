// The schema vocabulary the hand-written built-in models are written in. Nodes are plain OpenAPI
// v3 JSON (what /openapi/v3 serves); server/openapi/v2.ts converts them for /openapi/v2.
//
// Every object node is either closed (its properties are every field the API type has, so
// anything else is an unknown field) or open (`x-kubernetes-preserve-unknown-fields`): only some
// fields are described and others are let through. Open is the safe choice wherever the field
// list was not checked against k8s.io/api: strict field validation must never reject a real field.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';

export type Schema = JsonObject;

export const REF_PREFIX = '#/components/schemas/';
const OPEN = 'x-kubernetes-preserve-unknown-fields';
export const GVK_EXTENSION = 'x-kubernetes-group-version-kind';

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** A reference to a named model; with a description it takes kube's `allOf: [$ref]` form. */
export function ref(name: string, description?: string): Schema {
  const r: Schema = { $ref: `${REF_PREFIX}${name}` };
  return description ? { description, allOf: [r] } : r;
}

/** The model a node refers to, if it is a reference (plain or `allOf` of one). */
export function refName(s: Schema): string | undefined {
  const direct = s.$ref;
  if (typeof direct === 'string') return direct.slice(REF_PREFIX.length);
  const all = s.allOf;
  if (Array.isArray(all) && all.length === 1) {
    const only = all[0] as Schema;
    if (typeof only.$ref === 'string') return only.$ref.slice(REF_PREFIX.length);
  }
  return undefined;
}

export const str = (description: string, more: Schema = {}): Schema => ({ type: 'string', description, ...more });
export const oneOf = (description: string, values: string[]): Schema => ({ type: 'string', description, enum: values });
export const int32 = (description: string): Schema => ({ type: 'integer', format: 'int32', description });
export const int64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const bytes = (description: string): Schema => ({ type: 'string', format: 'byte', description });

export function list(items: Schema, description: string, listType: 'atomic' | 'set' = 'atomic'): Schema {
  return { type: 'array', description, items, 'x-kubernetes-list-type': listType };
}

export const strings = (description: string): Schema => list({ type: 'string', default: '' }, description);

/** A list merged by key, by strategic merge patch and server-side apply alike. */
export function keyedList(items: Schema, description: string, key: string, ...moreKeys: string[]): Schema {
  return {
    type: 'array',
    description,
    items,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [key, ...moreKeys],
    'x-kubernetes-patch-merge-key': key,
    'x-kubernetes-patch-strategy': 'merge',
  };
}

export function mapOf(value: Schema, description: string): Schema {
  return { type: 'object', description, additionalProperties: value };
}

export const stringMap = (description: string): Schema => mapOf({ type: 'string', default: '' }, description);

/** A closed object: `properties` lists every field of the API type. */
export function object(description: string, properties: Record<string, Schema>, required: string[] = []): Schema {
  const s: Schema = { type: 'object', description, properties };
  if (required.length > 0) s.required = required;
  return s;
}

/** An open object: the fields listed are documented, others are allowed. */
export function openObject(description: string, properties: Record<string, Schema> = {}): Schema {
  const s: Schema = { type: 'object', description, [OPEN]: true };
  if (Object.keys(properties).length > 0) s.properties = properties;
  return s;
}

export function isOpen(s: Schema): boolean {
  return s[OPEN] === true;
}

export function withGvk(s: Schema, gvks: Gvk[]): Schema {
  return { ...s, [GVK_EXTENSION]: gvks.map((g) => ({ group: g.group, kind: g.kind, version: g.version })) };
}

export function asSchema(v: JsonValue | undefined): Schema | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

// Model names follow kube's (Go package path + type), so clients and readers recognise them.
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const CORE = 'io.k8s.api.core.v1';
export const APPS = 'io.k8s.api.apps.v1';
export const BATCH = 'io.k8s.api.batch.v1';
export const AUTOSCALING = 'io.k8s.api.autoscaling.v1';
export const POLICY = 'io.k8s.api.policy.v1';

/** The model name kube gives a built-in kind: io.k8s.api.<group's first label>.<version>.<Kind>. */
export function builtinModelName(group: string, version: string, kind: string): string {
  if (group === 'apiextensions.k8s.io')
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  const pkg = group === '' ? 'core' : group.split('.')[0];
  return `io.k8s.api.${pkg}.${version}.${kind}`;
}

/** The model name kube gives a custom resource kind: the reversed group, version, kind. */
export function customModelName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** The common header of every kind's model: metav1.TypeMeta, kind before apiVersion as in Go. */
export function typeMeta(kind: string): Record<string, Schema> {
  return {
    kind: str(
      `Kind is a string value representing the REST resource this object represents (here ${kind}). Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.`,
    ),
    apiVersion: str(
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
    ),
  };
}

export const objectMetaRef = (): Schema =>
  ref(
    `${META}.ObjectMeta`,
    "Standard object's metadata: name, namespace, labels, annotations and the fields the server sets.",
  );
