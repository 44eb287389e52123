// Models of custom resources, from their CRDs' openAPIV3Schema: the schema as written, with the
// standard apiVersion, kind and metadata (kube publishes metadata as a reference to ObjectMeta
// whatever the CRD says about it).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  INT_OR_STRING,
  asSchema,
  objectMetaRef,
  openObject,
  ref,
  typeMeta,
  type Schema,
} from '../../builtins/openapi/schema.ts';

export const CRD_PREFIX = '/apiextensions.k8s.io/customresourcedefinitions/';

export interface CrdIndex {
  /** The openAPIV3Schema of one served version, if the CRD has one. */
  schemaOf(group: string, version: string, kind: string): Schema | undefined;
}

export function indexCrds(crds: JsonObject[]): CrdIndex {
  const schemas = new Map<string, Schema>();
  for (const crd of crds) {
    const spec = asSchema(crd.spec);
    const kind = asSchema(spec?.names)?.kind;
    if (!spec || typeof kind !== 'string') continue;
    for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
      const version = asSchema(v);
      const schema = asSchema(asSchema(version?.schema)?.openAPIV3Schema);
      if (version && schema) schemas.set(`${String(spec.group)}/${String(version.name)}/${kind}`, schema);
    }
  }
  return { schemaOf: (group, version, kind) => schemas.get(`${group}/${version}/${kind}`) };
}

export function customResourceModel(kind: string, apiVersion: string, raw: Schema | undefined): Schema {
  const header: Record<string, Schema> = { ...typeMeta(kind), metadata: objectMetaRef() };
  if (!raw) {
    return openObject(`${kind} is a custom resource (${apiVersion}) whose CRD declares no schema.`, header);
  }
  const schema = structuredClone(raw);
  referIntOrString(schema);
  schema.type ??= 'object';
  schema.properties = { ...header, ...(asSchema(schema.properties) ?? {}), metadata: header.metadata };
  for (const k of ['apiVersion', 'kind'] as const) {
    const own = asSchema(schema.properties[k]);
    // Keep a CRD's own description of apiVersion/kind only when it gives one.
    if (own && typeof own.description !== 'string') schema.properties[k] = header[k];
  }
  return schema;
}

/**
 * An int-or-string node has no `type`, so `kubectl explain` printed it as `<Object>`. Each also
 * refers to the IntOrString model (an `allOf` of one reference, as built-in fields such as
 * maxSurge do), which kubectl prints as `<IntOrString>` and describes; validation is unchanged.
 */
function referIntOrString(s: Schema): void {
  if (s['x-kubernetes-int-or-string'] === true && s.type === undefined && s.allOf === undefined) {
    s.allOf = [ref(INT_OR_STRING)];
  }
  for (const v of Object.values(asSchema(s.properties) ?? {})) referIntOrString(asSchema(v) ?? {});
  const items = asSchema(s.items);
  if (items) referIntOrString(items);
  const ap = asSchema(s.additionalProperties);
  if (ap) referIntOrString(ap);
}
