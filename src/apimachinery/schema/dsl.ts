// A tiny schema DSL (controller-gen's role, in code): each builder returns the OpenAPI v3 (structural) schema the CRD needs and
// carries the matching TypeScript type, so `Static<typeof X>` and the generated CRD YAML can never
// drift apart. Only the constructs CRDs use are here; it lives in apimachinery so the control plane
// can hand out its built-in types (Container, Volume, ...) as schemas of this DSL too.

/** The structural-schema subset our CRDs emit. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'number';
  description?: string;
  format?: string;
  enum?: readonly string[];
  minimum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  additionalProperties?: JsonSchema;
  pattern?: string;
  maximum?: number;
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: true;
  /** An integer or a string; kube requires the `anyOf` of both types beside it. */
  'x-kubernetes-int-or-string'?: true;
  anyOf?: JsonSchema[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-embedded-resource'?: true;
  'x-kubernetes-validations'?: Array<{ rule: string; message?: string; reason?: string; fieldPath?: string }>;
}

/** A schema node; `T` exists only for type inference (`__type` is never set). */
export interface Schema<T> {
  readonly json: JsonSchema;
  readonly __type?: T;
}

export type Static<S> = S extends Schema<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectType<P extends Record<string, Schema<unknown>>, R extends keyof P> = Simplify<
  { [K in R]: Static<P[K]> } & { [K in Exclude<keyof P, R>]?: Static<P[K]> }
>;

interface Doc {
  description?: string;
}

function node<T>(json: JsonSchema): Schema<T> {
  return { json };
}

function doc(opts: Doc | undefined): JsonSchema {
  return opts?.description ? { description: opts.description } : {};
}

function range(opts: { minimum?: number; maximum?: number } | undefined): JsonSchema {
  return {
    ...(opts?.minimum !== undefined ? { minimum: opts.minimum } : {}),
    ...(opts?.maximum !== undefined ? { maximum: opts.maximum } : {}),
  };
}

/** resource.Quantity as controller-gen emits it: an integer, or a string in the Quantity grammar. */
const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const intOrString = (): JsonSchema => ({
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
});

export const s = {
  string: (opts?: Doc): Schema<string> => node({ type: 'string', ...doc(opts) }),
  dateTime: (opts?: Doc): Schema<string> => node({ type: 'string', format: 'date-time', ...doc(opts) }),
  integer: (opts?: Doc & { minimum?: number; maximum?: number }): Schema<number> =>
    node({ type: 'integer', ...doc(opts), ...range(opts) }),
  number: (opts?: Doc & { minimum?: number; maximum?: number }): Schema<number> =>
    node({ type: 'number', ...doc(opts), ...range(opts) }),
  /** A string matching `pattern` (an ECMA regex, as the apiserver evaluates it). */
  pattern: (pattern: string, opts?: Doc): Schema<string> => node({ type: 'string', pattern, ...doc(opts) }),
  /** An object with arbitrary keys whose values all have one schema (a Go map). */
  map: <V>(values: Schema<V>, opts?: Doc): Schema<Record<string, V>> =>
    node({ type: 'object', additionalProperties: values.json, ...doc(opts) }),
  /** intstr.IntOrString: a port number or name, a count or a percentage. */
  intOrString: (opts?: Doc): Schema<number | string> => node({ ...intOrString(), ...doc(opts) }),
  /** resource.Quantity (100m, 1.5, 64Mi, or a bare integer). */
  quantity: (opts?: Doc): Schema<number | string> =>
    node({ ...intOrString(), pattern: QUANTITY_PATTERN, ...doc(opts) }),
  /** Any JSON value, kept as written (no pruning below it). `T` is what the reader expects. */
  unknown: <T = unknown>(opts?: Doc): Schema<T> => node({ 'x-kubernetes-preserve-unknown-fields': true, ...doc(opts) }),
  boolean: (opts?: Doc): Schema<boolean> => node({ type: 'boolean', ...doc(opts) }),
  enum: <const V extends readonly string[]>(values: V, opts?: Doc): Schema<V[number]> =>
    node({ type: 'string', enum: values, ...doc(opts) }),
  array: <I>(items: Schema<I>, opts?: Doc & { listType?: 'atomic' | 'set' | 'map'; mapKeys?: string[] }): Schema<I[]> =>
    node({
      type: 'array',
      items: items.json,
      ...doc(opts),
      ...(opts?.listType ? { 'x-kubernetes-list-type': opts.listType } : {}),
      ...(opts?.mapKeys ? { 'x-kubernetes-list-map-keys': opts.mapKeys } : {}),
    }),
  object: <P extends Record<string, Schema<unknown>>, R extends keyof P & string = never>(
    properties: P,
    opts?: Doc & { required?: readonly R[]; preserveUnknownFields?: boolean },
  ): Schema<ObjectType<P, R>> => {
    const props: Record<string, JsonSchema> = {};
    for (const [k, v] of Object.entries(properties)) props[k] = v.json;
    return node({
      type: 'object',
      ...doc(opts),
      // `metadata` is declared as a bare object, as controller-gen does; the server owns its schema.
      ...(Object.keys(props).length ? { properties: props } : {}),
      ...(opts?.required?.length ? { required: [...opts.required] } : {}),
      ...(opts?.preserveUnknownFields ? { 'x-kubernetes-preserve-unknown-fields': true as const } : {}),
    });
  },
};
