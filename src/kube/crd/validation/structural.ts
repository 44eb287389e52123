// kube's ValidateStructural: is a CRD schema "structural"? Every node typed (unless
// int-or-string or preserve-unknown-fields), value validations (anyOf, allOf, oneOf, not) only
// restricting what the skeleton already declares, root metadata limited to name/generateName.
// Errors are sorted by their text, as upstream sorts them.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject, asString } from '../json.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { fieldForbidden, fieldInvalid, fieldRequired } from '../../../apimachinery/validation/field-errors.ts';
import { goRegExp } from '../schema/go-regexp.ts';
import type { Structural } from '../schema/structural.ts';
import { isObject, hasKey } from '../../../apimachinery/json/index.ts';

type Level = 'root' | 'item' | 'field';

export function validateStructural(path: Path, s: Structural): FieldError[] {
  const errs = [...invariants(s, 'root', path), ...completeness(s.raw, s, path, path)];
  const text = (e: FieldError) => `${e.field}: ${e.message}`;
  return errs.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

function invariants(s: Structural | undefined, lvl: Level, path: Path): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (s.type === 'array' && !s.items) errs.push(fieldRequired(child(path, 'items'), 'must be specified'));
  errs.push(...invariants(s.items, 'item', child(path, 'items')));
  for (const [k, v] of s.properties ?? []) errs.push(...invariants(v, 'field', key(child(path, 'properties'), k)));
  if (s.additionalProperties) {
    if (lvl === 'root') errs.push(fieldForbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    errs.push(...invariants(s.additionalProperties.schema, 'field', child(path, 'additionalProperties')));
  }
  if (s.xIntOrString && s.xPreserveUnknownFields) {
    errs.push(
      fieldInvalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (s.xIntOrString && s.xEmbeddedResource) {
    errs.push(
      fieldInvalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  errs.push(...valueValidation(s.raw, isIntOrStringAnyOf(s.raw), isIntOrStringAllOf(s.raw), lvl, path));

  if (s.xEmbeddedResource && s.type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(s.type ? fieldInvalid(child(path, 'type'), s.type, detail) : fieldRequired(child(path, 'type'), detail));
  } else if (!s.type && !s.xIntOrString && !s.xPreserveUnknownFields) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[lvl];
    errs.push(fieldRequired(child(path, 'type'), detail));
  }
  if (s.xEmbeddedResource && s.additionalProperties) {
    errs.push(
      fieldForbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'),
    );
  }
  if (lvl === 'root' && s.type && s.type !== 'object')
    errs.push(fieldInvalid(child(path, 'type'), s.type, 'must be object at the root'));

  const checkMetadata = lvl === 'root' || s.xEmbeddedResource;
  for (const typeMeta of ['kind', 'apiVersion']) {
    const p = s.properties?.get(typeMeta);
    if (p && checkMetadata && p.type !== 'string') {
      errs.push(fieldInvalid(child(key(child(path, 'properties'), typeMeta), 'type'), p.type, 'must be string'));
    }
  }
  const metadata = s.properties?.get('metadata');
  if (metadata)
    errs.push(...metadataInvariants(metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata')));
  if (s.xEmbeddedResource && !s.xPreserveUnknownFields && !s.properties) {
    errs.push(
      fieldRequired(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
  return errs;
}

/** Keys whose presence at the root `metadata` schema is harmless: cleared or checked elsewhere. */
const METADATA_IGNORED = new Set(['type', 'default']);

function metadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(fieldInvalid(child(path, 'type'), s.type, 'must be object'));
  if (lvl !== 'root') return errs;
  let other = false;
  for (const [k, v] of Object.entries(s.raw)) {
    if (METADATA_IGNORED.has(k) || isZero(v)) continue;
    if (k === 'properties' && isObject(v)) {
      const names = Object.keys(v);
      if (names.length === 0 || names.every((n) => n === 'name' || n === 'generateName')) continue;
    }
    other = true;
  }
  if (other) {
    errs.push(
      fieldForbidden(
        path,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }
  return errs;
}

/** Zero values of the Go struct fields: kube cannot tell them from "not set". */
function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === '';
}

function isBareType(v: unknown, type: string): boolean {
  const o = asObject(v);
  if (!o || o.type !== type) return false;
  return Object.entries(o).every(([k, x]) => k === 'type' || isZero(x) || (isObject(x) && Object.keys(x).length === 0));
}

function isIntOrStringAnyOf(raw: JsonObject | undefined): boolean {
  const anyOf = asArray(raw?.anyOf);
  return anyOf?.length === 2 && isBareType(anyOf[0], 'integer') && isBareType(anyOf[1], 'string');
}

function isIntOrStringAllOf(raw: JsonObject): boolean {
  const allOf = asArray(raw.allOf);
  return !!allOf?.length && isIntOrStringAnyOf(asObject(allOf[0]));
}

function valueValidation(
  v: JsonObject,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  path: Path,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) {
    (asArray(v.anyOf) ?? []).forEach((x, i) =>
      errs.push(...nested(asObject(x), false, false, lvl, index(child(path, 'anyOf'), i))),
    );
  }
  (asArray(v.allOf) ?? []).forEach((x, i) =>
    errs.push(...nested(asObject(x), skipFirstAllOfAnyOf && i === 0, false, lvl, index(child(path, 'allOf'), i))),
  );
  (asArray(v.oneOf) ?? []).forEach((x, i) =>
    errs.push(...nested(asObject(x), false, false, lvl, index(child(path, 'oneOf'), i))),
  );
  errs.push(...nested(asObject(v.not), false, false, lvl, child(path, 'not')));
  const pattern = asString(v.pattern);
  if (pattern) {
    const re = goRegExp(pattern);
    if (!re.ok)
      errs.push(
        fieldInvalid(child(path, 'pattern'), pattern, `must be a valid regular expression, but isn't: ${re.error}`),
      );
  }
  return errs;
}

const NESTED_FORBIDDEN: [string, (v: unknown) => boolean, string][] = [
  ['title', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['description', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['nullable', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-int-or-string', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
  ['x-kubernetes-list-type', (v) => typeof v === 'string', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', (v) => typeof v === 'string', 'must be undefined to be structural'],
  ['x-kubernetes-validations', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
];

function nested(
  v: JsonObject | undefined,
  skipAnyOf: boolean,
  skipAllOfAnyOf: boolean,
  lvl: Level,
  path: Path,
): FieldError[] {
  if (!v) return [];
  const errs = valueValidation(v, skipAnyOf, skipAllOfAnyOf, lvl, path);
  errs.push(...nested(asObject(v.items), false, false, lvl, child(path, 'items')));
  for (const [k, x] of Object.entries(asObject(v.properties) ?? {})) {
    errs.push(...nested(asObject(x), false, false, 'field', key(child(path, 'properties'), k)));
  }
  if (asString(v.type)) errs.push(fieldForbidden(child(path, 'type'), 'must be empty to be structural'));
  if (isObject(v.additionalProperties) || v.additionalProperties === true) {
    errs.push(fieldForbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  }
  if (hasKey(v, 'default') && v.default !== null)
    errs.push(fieldForbidden(child(path, 'default'), 'must be undefined to be structural'));
  for (const [name, isSet, detail] of NESTED_FORBIDDEN)
    if (isSet(v[name])) errs.push(fieldForbidden(child(path, name), detail));
  if (hasKey(asObject(v.properties) ?? {}, 'metadata')) {
    errs.push(fieldForbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

/** Value validations may only mention fields and items the skeleton declares. */
function completeness(v: JsonObject, s: Structural | undefined, sPath: Path, vPath: Path): FieldError[] {
  if (!s) return [fieldRequired(sPath, `because it is defined in ${vPath ?? '<nil>'}`)];
  const errs: FieldError[] = [];
  errs.push(...nestedCompleteness(asObject(v.not), s, sPath, child(vPath, 'not')));
  for (const junctor of ['allOf', 'anyOf', 'oneOf']) {
    (asArray(v[junctor]) ?? []).forEach((x, i) =>
      errs.push(...nestedCompleteness(asObject(x), s, sPath, index(child(vPath, junctor), i))),
    );
  }
  return errs;
}

function nestedCompleteness(
  v: JsonObject | undefined,
  s: Structural | undefined,
  sPath: Path,
  vPath: Path,
): FieldError[] {
  if (!v) return [];
  if (!s) return [fieldRequired(sPath, `because it is defined in ${vPath ?? '<nil>'}`)];
  const errs = completeness(v, s, sPath, vPath);
  const items = asObject(v.items);
  if (items) errs.push(...nestedCompleteness(items, s.items, child(sPath, 'items'), child(vPath, 'items')));
  for (const [k, x] of Object.entries(asObject(v.properties) ?? {})) {
    const vp = key(child(vPath, 'properties'), k);
    const sp = key(child(sPath, 'properties'), k);
    const sf = s.properties?.get(k);
    if (!sf) errs.push(fieldRequired(sp, `because it is defined in ${vp}`));
    else errs.push(...nestedCompleteness(asObject(x), sf, sp, vp));
  }
  return errs;
}
