// Printer columns and the scale subresource of a CRD version: kube's
// ValidateCustomResourceColumnDefinition and ValidateCustomResourceDefinitionSubresources.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asObject, asString } from '../json.ts';
import { child } from '../../../apimachinery/validation/field-path.ts';
import { fieldInvalid, fieldRequired } from '../../../apimachinery/validation/field-errors.ts';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** kube's validateSimpleJSONPath. */
function simpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [fieldInvalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [fieldInvalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

export function validateSubresources(sub: JsonObject | undefined, path: string): FieldError[] {
  const scale = asObject(sub?.scale);
  if (!scale) return [];
  const errs: FieldError[] = [];
  const spec = asString(scale.specReplicasPath) ?? '';
  const status = asString(scale.statusReplicasPath) ?? '';
  const selector = asString(scale.labelSelectorPath);
  const sp = child(path, 'scale.specReplicasPath');
  if (!spec) errs.push(fieldRequired(sp));
  else {
    const e = simpleJSONPath(spec, sp);
    if (e.length) errs.push(...e);
    else if (!spec.startsWith('.spec.')) errs.push(fieldInvalid(sp, spec, 'should be a json path under .spec'));
  }
  const stp = child(path, 'scale.statusReplicasPath');
  if (!status) errs.push(fieldRequired(stp));
  else {
    const e = simpleJSONPath(status, stp);
    if (e.length) errs.push(...e);
    else if (!status.startsWith('.status.'))
      errs.push(fieldInvalid(stp, status, 'should be a json path under .status'));
  }
  if (selector) {
    const lp = child(path, 'scale.labelSelectorPath');
    const e = simpleJSONPath(selector, lp);
    if (e.length) errs.push(...e);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errs.push(fieldInvalid(lp, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

export function validateColumn(col: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(col.name) ?? '';
  const type = asString(col.type) ?? '';
  const format = asString(col.format) ?? '';
  const jsonPath = asString(col.jsonPath) ?? '';
  if (!name) errs.push(fieldRequired(child(path, 'name')));
  const typeMsg = `must be one of ${COLUMN_TYPES.join(',')}`;
  if (!type) errs.push(fieldRequired(child(path, 'type'), typeMsg));
  else if (!COLUMN_TYPES.includes(type)) errs.push(fieldInvalid(child(path, 'type'), type, typeMsg));
  if (format && !COLUMN_FORMATS.includes(format)) {
    errs.push(fieldInvalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  // The internal field is named JSONPath, and kube reports it under that name.
  if (!jsonPath) errs.push(fieldRequired(child(path, 'JSONPath')));
  else errs.push(...simpleJSONPath(jsonPath, child(path, 'JSONPath')));
  return errs;
}
