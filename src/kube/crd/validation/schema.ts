// kube's validateCustomResourceDefinitionValidation: one version's (or the shared) schema.
// Structural-schema errors, default-value errors and the static schema checks, in kube's order.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asObject } from '../json.ts';
import { child } from '../../../apimachinery/validation/field-path.ts';
import { fieldForbidden, fieldInvalid } from '../../../apimachinery/validation/field-errors.ts';
import { checkOpenAPISchema } from './schema-checks.ts';
import { toStructural } from '../schema/structural.ts';
import { validateStructural } from './structural.ts';
import { structuralInitError } from './structural-init.ts';
import { validateDefaults } from './defaults.ts';
import { schemaStruct } from './internal-json.ts';
import { celCompileErrors } from './cel-rules.ts';

export interface CrdSchemaOptions {
  requireValidPropertyType: boolean;
  requirePrunedDefaults: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
}

/** JSONSchemaProps' fields in Go declaration order, by JSON name: kube reports the first misplaced one. */
const ROOT_FIELD_ORDER = [
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'nullable',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];
const GO_NAMES: Record<string, string> = {
  description: 'Description',
  type: 'Type',
  format: 'Format',
  title: 'Title',
  maximum: 'Maximum',
  exclusiveMaximum: 'ExclusiveMaximum',
  minimum: 'Minimum',
  exclusiveMinimum: 'ExclusiveMinimum',
  maxLength: 'MaxLength',
  minLength: 'MinLength',
  pattern: 'Pattern',
  maxItems: 'MaxItems',
  minItems: 'MinItems',
  uniqueItems: 'UniqueItems',
  multipleOf: 'MultipleOf',
  required: 'Required',
  items: 'Items',
  properties: 'Properties',
  externalDocs: 'ExternalDocs',
  example: 'Example',
  'x-kubernetes-preserve-unknown-fields': 'XPreserveUnknownFields',
  'x-kubernetes-validations': 'XValidations',
};
const ALLOWED_AT_ROOT = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

/** Go zero values: kube cannot tell them from unset. */
function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === '';
}

function statusRootErrors(schema: JsonObject, path: string): FieldError[] {
  for (const field of ROOT_FIELD_ORDER) {
    if (isZero(schema[field])) continue;
    if (field === 'type') {
      if (schema.type !== 'object') {
        return [
          fieldInvalid(
            child(path, 'openAPIV3Schema.type'),
            schema.type,
            'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
          ),
        ];
      }
      continue;
    }
    if (!ALLOWED_AT_ROOT.includes(GO_NAMES[field] ?? '')) {
      return [
        fieldInvalid(
          child(path, 'openAPIV3Schema'),
          schemaStruct(schema),
          `only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
        ),
      ];
    }
  }
  return [];
}

export function validateCrdSchema(
  wrapper: JsonObject | undefined,
  statusEnabled: boolean,
  opts: CrdSchemaOptions,
  path: string,
): FieldError[] {
  const schema = asObject(wrapper?.openAPIV3Schema);
  if (!schema) return [];
  const errs: FieldError[] = [];
  const at = child(path, 'openAPIV3Schema');
  if (statusEnabled) errs.push(...statusRootErrors(schema, path));
  if (schema.nullable === true)
    errs.push(fieldForbidden(child(path, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  const initError = structuralInitError(schema);
  if (!initError) {
    const structural = toStructural(schema);
    const structuralErrs = validateStructural(at, structural);
    errs.push(
      ...(structuralErrs.length ? structuralErrs : validateDefaults(at, structural, opts.requirePrunedDefaults)),
    );
  }
  errs.push(
    ...checkOpenAPISchema(
      schema,
      at,
      {
        allowDefaults: true,
        disallowDefaultsReason: '',
        insideResourceMeta: false,
        requireValidPropertyType: opts.requireValidPropertyType,
        requireAtomicSetType: opts.requireAtomicSetType,
        requireMapListKeysMapSetValidation: opts.requireMapListKeysMapSetValidation,
      },
      true,
    ),
  );
  if (errs.length === 0 && initError) errs.push(fieldInvalid(at, '', initError));
  // kube compiles the rules only when the schema itself is sound (its CEL errors come last).
  if (errs.length === 0) errs.push(...celCompileErrors(schema, at));
  return errs;
}
