// kube's ValidateCustomResourceDefinitionOpenAPISchema: what a CRD schema may contain at all —
// no $ref/definitions/patternProperties, defaults only where they can be applied, consistent
// x-kubernetes-list-type / list-map-keys / map-type, sane x-kubernetes-validations entries.
// (The CEL expressions themselves are not compiled.)
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject, asString } from '../json.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { isObject, hasKey } from '../../../apimachinery/json/index.ts';

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** specStandardValidatorV3's context while descending the schema. */
export interface SchemaCheckContext {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
  requireValidPropertyType: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
}

function withForbiddenDefaults(c: SchemaCheckContext, reason: string): SchemaCheckContext {
  return { ...c, allowDefaults: false, disallowDefaultsReason: reason };
}

function standard(s: JsonObject, path: string, c: SchemaCheckContext): FieldError[] {
  const errs: FieldError[] = [];
  const type = asString(s.type) ?? '';
  if (c.requireValidPropertyType && type && !OPENAPI_TYPES.includes(type)) {
    errs.push(fieldNotSupported(child(path, 'type'), type, OPENAPI_TYPES));
  }
  if (hasKey(s, 'default') && s.default !== null && !c.allowDefaults) {
    errs.push(
      fieldForbidden(
        child(path, 'default'),
        `must not be set${c.disallowDefaultsReason ? ` ${c.disallowDefaultsReason}` : ''}`,
      ),
    );
  }
  if (asString(s.id)) errs.push(fieldForbidden(child(path, 'id'), 'id is not supported'));
  if (hasKey(s, 'additionalItems'))
    errs.push(fieldForbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (Object.keys(asObject(s.patternProperties) ?? {}).length) {
    errs.push(fieldForbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  }
  if (Object.keys(asObject(s.definitions) ?? {}).length)
    errs.push(fieldForbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (hasKey(s, 'dependencies'))
    errs.push(fieldForbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (asString(s.$ref) !== undefined) errs.push(fieldForbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'null')
    errs.push(fieldForbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length)
    errs.push(fieldForbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (c.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    errs.push(
      fieldForbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'),
    );
  }
  return errs;
}

export function checkOpenAPISchema(
  s: JsonObject | undefined,
  path: string,
  c: SchemaCheckContext,
  isRoot: boolean,
): FieldError[] {
  if (!s) return [];
  const errs = standard(s, path, c);
  const type = asString(s.type) ?? '';
  if (s.uniqueItems === true) {
    errs.push(
      fieldForbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const props = asObject(s.properties) ?? {};
  const hasProps = Object.keys(props).length > 0;
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== null) {
    if (hasProps && (ap === false || isObject(ap))) {
      errs.push(
        fieldForbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
    }
    const sub = c.insideResourceMeta
      ? withForbiddenDefaults(c, 'inside additionalProperties applying to object metadata')
      : c;
    errs.push(...checkOpenAPISchema(asObject(ap), child(path, 'additionalProperties'), sub, false));
  }
  for (const [name, prop] of Object.entries(props)) {
    let sub = c;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${name}`);
    }
    errs.push(...checkOpenAPISchema(asObject(prop), key(child(path, 'properties'), name), sub, false));
  }
  errs.push(...checkOpenAPISchema(asObject(s.not), child(path, 'not'), c, false));
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    (asArray(s[junctor]) ?? []).forEach((x, i) =>
      errs.push(...checkOpenAPISchema(asObject(x), index(child(path, junctor), i), c, false)),
    );
  }
  for (const [name, d] of Object.entries(asObject(s.definitions) ?? {})) {
    errs.push(...checkOpenAPISchema(asObject(d), key(child(path, 'definitions'), name), c, false));
  }
  if (isObject(s.items)) errs.push(...checkOpenAPISchema(s.items, child(path, 'items'), c, false));
  else if (Array.isArray(s.items)) {
    s.items.forEach((x, i) => errs.push(...checkOpenAPISchema(asObject(x), index(child(path, 'items'), i), c, false)));
  }
  for (const [name, d] of Object.entries(asObject(s.dependencies) ?? {})) {
    if (isObject(d)) errs.push(...checkOpenAPISchema(d, key(child(path, 'dependencies'), name), c, false));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldInvalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  errs.push(...listAndMapTypes(s, type, path, c));
  if (c.requireMapListKeysMapSetValidation) errs.push(...checkMapListKeysMapSet(s, path));
  errs.push(...validationRules(s, path));
  return errs;
}

function listAndMapTypes(s: JsonObject, type: string, path: string, c: SchemaCheckContext): FieldError[] {
  const errs: FieldError[] = [];
  const mapType = asString(s['x-kubernetes-map-type']);
  const listType = asString(s['x-kubernetes-list-type']);
  const mapKeys = (asArray(s['x-kubernetes-list-map-keys']) ?? []).filter((k): k is string => typeof k === 'string');
  const items = asObject(s.items);
  if (mapType !== undefined && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errs.push(type ? fieldInvalid(child(path, 'type'), type, detail) : fieldRequired(child(path, 'type'), detail));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(fieldNotSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type ? fieldInvalid(child(path, 'type'), type, detail) : fieldRequired(child(path, 'type'), detail));
  } else if (c.requireAtomicSetType && listType === 'set' && items) {
    const itemListType = asString(items['x-kubernetes-list-type']);
    const itemMapType = asString(items['x-kubernetes-map-type']);
    const detail = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    if (items.type === 'array' && itemListType !== undefined && itemListType !== 'atomic') {
      errs.push(fieldInvalid(child(path, 'items', 'x-kubernetes-list-type'), itemListType, detail));
    } else if (items.type === 'object' && itemMapType !== 'atomic') {
      // kube prints the item's list type here (usually unset), not its map type.
      errs.push(fieldInvalid(child(path, 'items', 'x-kubernetes-map-type'), itemListType ?? null, detail));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    errs.push(fieldNotSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined) {
      errs.push(
        fieldRequired(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'),
      );
    } else if (listType !== 'map') {
      errs.push(
        fieldInvalid(
          child(path, 'x-kubernetes-list-type'),
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    }
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) {
      errs.push(
        fieldRequired(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
      );
    }
    if (s.items === undefined || s.items === null) {
      errs.push(fieldRequired(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    }
    if (Array.isArray(s.items)) {
      errs.push(
        fieldInvalid(child(path, 'items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'),
      );
    }
    if (items && items.type !== 'object') {
      errs.push(
        fieldInvalid(
          child(path, 'items', 'type'),
          asString(items.type) ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items && items.type === 'object') {
      const itemProps = asObject(items.properties) ?? {};
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const p = asObject(itemProps[k]);
        if (p) {
          if (p.type === 'array' || p.type === 'object') {
            // kube prints the item type ("object") as the bad value.
            errs.push(
              fieldInvalid(
                child(key(child(path, 'items', 'properties'), k), 'type'),
                'object',
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errs.push(
            fieldInvalid(
              child(path, 'x-kubernetes-list-map-keys'),
              mapKeys,
              'entries must all be names of item properties',
            ),
          );
        }
        if (seen.has(k))
          errs.push(
            fieldInvalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'),
          );
        seen.add(k);
      }
    }
  }
  return errs;
}

/** validateMapListKeysMapSet: set/map items are not nullable; map keys are required or defaulted, never nullable. */
export function checkMapListKeysMapSet(s: JsonObject, path: string): FieldError[] {
  const items = asObject(s.items);
  const listType = asString(s['x-kubernetes-list-type']);
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (items.nullable === true)
    errs.push(
      fieldForbidden(child(path, 'items', 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`),
    );
  if (listType === 'map') {
    const req = new Set((asArray(items.required) ?? []).filter((r): r is string => typeof r === 'string'));
    const props = asObject(items.properties) ?? {};
    for (const k of (asArray(s['x-kubernetes-list-map-keys']) ?? []).filter(
      (x): x is string => typeof x === 'string',
    )) {
      const p = asObject(props[k]);
      if (!p) continue;
      const keyPath = key(child(path, 'items', 'properties'), k);
      if (!req.has(k) && (p.default === undefined || p.default === null)) {
        errs.push(
          fieldRequired(
            child(keyPath, 'default'),
            'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
          ),
        );
      }
      if (p.nullable === true) {
        errs.push(
          fieldForbidden(
            child(keyPath, 'nullable'),
            'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
          ),
        );
      }
    }
  }
  return errs;
}

/** The syntactic checks on x-kubernetes-validations entries. */
function validationRules(s: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const hasNewlines = (x: string) => /[\n\r]+/.test(x);
  (asArray(s['x-kubernetes-validations']) ?? []).forEach((r, i) => {
    const rule = asObject(r) ?? {};
    const p = index(child(path, 'x-kubernetes-validations'), i);
    const text = (asString(rule.rule) ?? '').trim();
    const message = asString(rule.message) ?? '';
    const messageExpression = asString(rule.messageExpression) ?? '';
    const fieldPath = asString(rule.fieldPath) ?? '';
    if (!text) errs.push(fieldRequired(child(p, 'rule'), 'rule is not specified'));
    else if (message.length > 0 && !message.trim())
      errs.push(fieldInvalid(child(p, 'message'), message, 'must be non-empty if specified'));
    else if (hasNewlines(message.trim()))
      errs.push(fieldInvalid(child(p, 'message'), message, 'must not contain line breaks'));
    else if (hasNewlines(text) && !message.trim()) {
      errs.push(fieldRequired(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    }
    if (messageExpression.length > 0 && !messageExpression.trim()) {
      errs.push(fieldRequired(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    const reason = asString(rule.reason);
    if (reason !== undefined && !RULE_REASONS.includes(reason))
      errs.push(fieldNotSupported(child(p, 'reason'), reason, RULE_REASONS));
    if (fieldPath.length > 0 && !fieldPath.trim())
      errs.push(fieldInvalid(child(p, 'fieldPath'), fieldPath, 'must be non-empty if specified'));
    if (hasNewlines(fieldPath))
      errs.push(fieldInvalid(child(p, 'fieldPath'), fieldPath, 'must not contain line breaks'));
  });
  return errs;
}
