// One served version of a CRD, compiled for the custom-resource write path: defaulting, pruning,
// validation (schema, scale, embedded resources, list sets and maps), server-side-apply merge
// info, subresources and printer columns. Compiled once per distinct version definition.
import type { FieldError } from '../../apimachinery/validation/field-errors.ts';
import type { SchemaInfo } from '../patch/schema-info.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { applyStructuralDefaults, pruneNonNullableNullsWithoutDefaults } from './schema/defaulting.ts';
import { validateEmbeddedResources } from './schema/embedded.ts';
import { asArray, asNumber, asObject, asString } from './json.ts';
import { validateListSetsAndMaps } from './schema/list-type.ts';
import { pruneResource } from './schema/pruning.ts';
import type { PruneOutcome } from './schema/pruning.ts';
import { validateScaleSpec, validateScaleStatus } from './scale.ts';
import type { ScaleSpec } from './scale.ts';
import { structuralSchemaInfo } from './schema/schema-info.ts';
import { validateValue } from './schema/validator.ts';
import { validateRules } from './cel/rules.ts';
import { toStructural } from './schema/structural.ts';
import type { Structural } from './schema/structural.ts';

export type ScaleInfo = ScaleSpec;

export interface PrinterColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  jsonPath: string;
}

export interface CompiledSchema {
  version: string;
  /** The version's structural schema; undefined when the version has none. */
  structural?: Structural;
  /** Applies schema defaults in place (dropping nulls the schema does not allow); returns `obj`. */
  applyDefaults(obj: JsonObject): JsonObject;
  /** Prunes unknown fields in place; returns their paths (`spec.foo`) for fieldValidation. */
  prune(obj: JsonObject): string[];
  /** As `prune`, also reporting metadata fields of the wrong type (kube answers those writes with 400). */
  pruneDetailed(obj: JsonObject): PruneOutcome;
  /**
   * Everything kube's custom-resource strategy checks on create and update, ObjectMeta aside.
   * With `old` (an update), schema errors about values left unchanged are ratcheted away.
   */
  validate(obj: JsonObject, old?: JsonObject): FieldError[];
  /** The checks of a write to the status subresource (`status.*` paths, as kube reports them). */
  validateStatus(obj: JsonObject, old?: JsonObject): FieldError[];
  schemaInfo: SchemaInfo;
  hasStatus: boolean;
  scale?: ScaleInfo;
  /** The columns kube serves after Name: the version's, or Age when it declares none. */
  printerColumns: PrinterColumn[];
}

/** The description kube's Table gives the default Age column (ObjectMeta's creationTimestamp doc). */
const CREATION_TIMESTAMP_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Name column kube puts first in every custom resource Table. */
export const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};

function findVersion(crd: JsonObject, version: string): JsonObject {
  const v = (asArray(asObject(crd.spec)?.versions) ?? []).map(asObject).find((x) => x?.name === version);
  if (!v)
    throw new Error(
      `version ${version} not found in CustomResourceDefinition ${String(asObject(crd.metadata)?.name ?? '')}`,
    );
  return v;
}

function printerColumns(v: JsonObject): PrinterColumn[] {
  const declared = (asArray(v.additionalPrinterColumns) ?? []).map((c) => asObject(c) ?? {});
  if (declared.length === 0) {
    return [
      {
        name: 'Age',
        type: 'date',
        format: '',
        description: CREATION_TIMESTAMP_DOC,
        priority: 0,
        jsonPath: '.metadata.creationTimestamp',
      },
    ];
  }
  return declared.map((c) => {
    const jsonPath = asString(c.jsonPath) ?? '';
    return {
      name: asString(c.name) ?? '',
      type: asString(c.type) ?? '',
      format: asString(c.format) ?? '',
      description: asString(c.description) || `Custom resource definition column (in JSONPath format): ${jsonPath}`,
      priority: asNumber(c.priority) ?? 0,
      jsonPath,
    };
  });
}

function scaleOf(v: JsonObject): ScaleInfo | undefined {
  const scale = asObject(asObject(v.subresources)?.scale);
  if (!scale) return undefined;
  const info: ScaleInfo = {
    specReplicasPath: asString(scale.specReplicasPath) ?? '',
    statusReplicasPath: asString(scale.statusReplicasPath) ?? '',
  };
  const selector = asString(scale.labelSelectorPath);
  if (selector) info.labelSelectorPath = selector;
  return info;
}

function build(v: JsonObject): CompiledSchema {
  const raw = asObject(asObject(v.schema)?.openAPIV3Schema);
  const structural = raw ? toStructural(raw) : undefined;
  const scale = scaleOf(v);
  const statusRaw = structural?.properties?.get('status')?.raw;
  const pruneDetailed = (obj: JsonObject): PruneOutcome => {
    const outcome = pruneResource(obj, structural);
    pruneNonNullableNullsWithoutDefaults(obj, structural);
    return outcome;
  };
  const compiled: CompiledSchema = {
    version: asString(v.name) ?? '',
    applyDefaults: (obj) => {
      pruneNonNullableNullsWithoutDefaults(obj, structural);
      applyStructuralDefaults(obj, structural);
      return obj;
    },
    prune: (obj) => pruneDetailed(obj).unknownFields,
    pruneDetailed,
    validate: (obj, old) => {
      const errs = raw ? validateValue(raw, obj, null, old && { value: old, schema: structural }) : [];
      if (scale) errs.push(...validateScaleSpec(obj, scale), ...validateScaleStatus(obj, scale));
      errs.push(...validateEmbeddedResources(null, obj, structural));
      errs.push(...validateListSetsAndMaps(null, structural, obj));
      // kube skips the rules when a value has the wrong type (their `self` would not be typed).
      if (!errs.some((e) => e.reason === 'FieldValueTypeInvalid'))
        errs.push(...validateRules(structural, null, obj, old));
      return errs;
    },
    validateStatus: (obj, old) => {
      const previous = old && { value: old.status, schema: structural?.properties?.get('status') };
      const errs =
        statusRaw && obj.status !== undefined ? validateValue(statusRaw, obj.status, 'status', previous) : [];
      if (scale) errs.push(...validateScaleStatus(obj, scale));
      errs.push(...validateEmbeddedResources(null, obj, structural));
      errs.push(...validateListSetsAndMaps(null, structural, obj));
      if (!errs.some((e) => e.reason === 'FieldValueTypeInvalid')) {
        errs.push(...validateRules(structural?.properties?.get('status'), 'status', obj.status, old?.status));
      }
      return errs;
    },
    schemaInfo: structuralSchemaInfo(structural),
    hasStatus: asObject(asObject(v.subresources)?.status) !== undefined,
    printerColumns: printerColumns(v),
  };
  if (structural) compiled.structural = structural;
  if (scale) compiled.scale = scale;
  return compiled;
}

const CACHE_LIMIT = 256;
const cache = new Map<string, CompiledSchema>();

/** Compiles (or returns the cached compilation of) one version of a CRD; throws if the version is absent. */
export function compileCrdVersion(crd: JsonObject, version: string): CompiledSchema {
  const v = findVersion(crd, version);
  const id = JSON.stringify(v);
  let c = cache.get(id);
  if (c) {
    cache.delete(id);
  } else {
    c = build(JSON.parse(id) as JsonObject);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  }
  cache.set(id, c);
  return c;
}
