// Some CRD errors print internal apiextensions structs as their bad value. Those structs have no
// JSON tags, so Go's json.Marshal writes every field under its Go name, in declaration order:
// `{"Name":"v1","Served":true,...}`. This renders CRD parts that way, for identical messages.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject } from '../json.ts';
import type { CrdVersionView } from './spec.ts';
import { isObject, hasKey } from '../../../apimachinery/json/index.ts';

/** A Go struct value: fields in declaration order (go-format's goJson keeps that order). */
export class GoStruct {
  constructor(readonly fields: [string, unknown][]) {}
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const ptr = (o: JsonObject, k: string): unknown => (hasKey(o, k) ? o[k] : null);
const bool = (v: unknown) => v === true;

function list<T>(v: unknown, f: (x: JsonValue) => T): T[] | null {
  const a = asArray(v);
  return a ? a.map(f) : null;
}

function map(v: unknown): Record<string, GoStruct> | null {
  const o = asObject(v);
  if (!o) return null;
  const out: Record<string, GoStruct> = {};
  for (const [k, x] of Object.entries(o)) out[k] = schemaStruct(asObject(x) ?? {});
  return out;
}

function orBool(v: unknown): GoStruct | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean')
    return new GoStruct([
      ['Allows', v],
      ['Schema', null],
    ]);
  return new GoStruct([
    ['Allows', true],
    ['Schema', schemaStruct(asObject(v) ?? {})],
  ]);
}

/** apiextensions.ValidationRule (one x-kubernetes-validations entry). */
export function ruleStruct(r: unknown): GoStruct {
  const o = asObject(r) ?? {};
  return new GoStruct([
    ['Rule', str(o.rule)],
    ['Message', str(o.message)],
    ['MessageExpression', str(o.messageExpression)],
    ['Reason', ptr(o, 'reason')],
    ['FieldPath', str(o.fieldPath)],
    ['OptionalOldSelf', ptr(o, 'optionalOldSelf')],
  ]);
}

/** apiextensions.JSONSchemaProps. */
export function schemaStruct(s: JsonObject): GoStruct {
  const items = s.items;
  const deps = asObject(s.dependencies);
  return new GoStruct([
    ['ID', str(s.id)],
    ['Schema', str(s.$schema)],
    ['Ref', ptr(s, '$ref')],
    ['Description', str(s.description)],
    ['Type', str(s.type)],
    ['Nullable', bool(s.nullable)],
    ['Format', str(s.format)],
    ['Title', str(s.title)],
    ['Default', ptr(s, 'default')],
    ['Maximum', ptr(s, 'maximum')],
    ['ExclusiveMaximum', bool(s.exclusiveMaximum)],
    ['Minimum', ptr(s, 'minimum')],
    ['ExclusiveMinimum', bool(s.exclusiveMinimum)],
    ['MaxLength', ptr(s, 'maxLength')],
    ['MinLength', ptr(s, 'minLength')],
    ['Pattern', str(s.pattern)],
    ['MaxItems', ptr(s, 'maxItems')],
    ['MinItems', ptr(s, 'minItems')],
    ['UniqueItems', bool(s.uniqueItems)],
    ['MultipleOf', ptr(s, 'multipleOf')],
    ['Enum', ptr(s, 'enum')],
    ['MaxProperties', ptr(s, 'maxProperties')],
    ['MinProperties', ptr(s, 'minProperties')],
    ['Required', ptr(s, 'required')],
    [
      'Items',
      items === undefined || items === null
        ? null
        : new GoStruct([
            ['Schema', isObject(items) ? schemaStruct(items) : null],
            ['JSONSchemas', Array.isArray(items) ? items.map((x) => schemaStruct(asObject(x) ?? {})) : null],
          ]),
    ],
    ['AllOf', list(s.allOf, (x) => schemaStruct(asObject(x) ?? {}))],
    ['OneOf', list(s.oneOf, (x) => schemaStruct(asObject(x) ?? {}))],
    ['AnyOf', list(s.anyOf, (x) => schemaStruct(asObject(x) ?? {}))],
    ['Not', isObject(s.not) ? schemaStruct(s.not) : null],
    ['Properties', map(s.properties)],
    ['AdditionalProperties', orBool(s.additionalProperties)],
    ['PatternProperties', map(s.patternProperties)],
    [
      'Dependencies',
      deps
        ? Object.fromEntries(
            Object.entries(deps).map(([k, d]) => [
              k,
              new GoStruct([
                ['Schema', isObject(d) ? schemaStruct(d) : null],
                ['Property', Array.isArray(d) ? d : null],
              ]),
            ]),
          )
        : null,
    ],
    ['AdditionalItems', orBool(s.additionalItems)],
    ['Definitions', map(s.definitions)],
    [
      'ExternalDocs',
      isObject(s.externalDocs)
        ? new GoStruct([
            ['Description', str(s.externalDocs.description)],
            ['URL', str(s.externalDocs.url)],
          ])
        : null,
    ],
    ['Example', ptr(s, 'example')],
    ['XPreserveUnknownFields', ptr(s, 'x-kubernetes-preserve-unknown-fields')],
    ['XEmbeddedResource', bool(s['x-kubernetes-embedded-resource'])],
    ['XIntOrString', bool(s['x-kubernetes-int-or-string'])],
    ['XListMapKeys', ptr(s, 'x-kubernetes-list-map-keys')],
    ['XListType', ptr(s, 'x-kubernetes-list-type')],
    ['XMapType', ptr(s, 'x-kubernetes-map-type')],
    ['XValidations', list(s['x-kubernetes-validations'], ruleStruct)],
  ]);
}

function subresourcesStruct(sub: JsonObject | undefined): GoStruct | null {
  if (!sub) return null;
  const scale = asObject(sub.scale);
  return new GoStruct([
    ['Status', isObject(sub.status) ? new GoStruct([]) : null],
    [
      'Scale',
      scale
        ? new GoStruct([
            ['SpecReplicasPath', str(scale.specReplicasPath)],
            ['StatusReplicasPath', str(scale.statusReplicasPath)],
            ['LabelSelectorPath', ptr(scale, 'labelSelectorPath')],
          ])
        : null,
    ],
  ]);
}

/** apiextensions.CustomResourceDefinitionVersion, after kube moved shared parts to the top level. */
export function versionStruct(v: CrdVersionView): GoStruct {
  const schema = asObject(v.schema?.openAPIV3Schema);
  return new GoStruct([
    ['Name', v.name],
    ['Served', v.served],
    ['Storage', v.storage],
    ['Deprecated', v.deprecated],
    ['DeprecationWarning', v.deprecationWarning ?? null],
    ['Schema', v.schema ? new GoStruct([['OpenAPIV3Schema', schema ? schemaStruct(schema) : null]]) : null],
    ['Subresources', subresourcesStruct(v.subresources)],
    [
      'AdditionalPrinterColumns',
      v.columns?.map(
        (c) =>
          new GoStruct([
            ['Name', str(c.name)],
            ['Type', str(c.type)],
            ['Format', str(c.format)],
            ['Description', str(c.description)],
            ['Priority', typeof c.priority === 'number' ? c.priority : 0],
            ['JSONPath', str(c.jsonPath)],
          ]),
      ) ?? null,
    ],
    ['SelectableFields', v.selectableFields?.map((f) => new GoStruct([['JSONPath', str(f.jsonPath)]])) ?? null],
  ]);
}
