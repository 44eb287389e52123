// Field-error builders for built-in validation: the shared ones from validation/field-errors.ts
// plus the kinds that module does not have yet (Duplicate, Not found).
import type { FieldError } from '../errors.ts';
import { renderBadValue, type BadValue } from '../validation/field-errors.ts';

export {
  GoValue,
  child,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  index,
  renderBadValue,
  type BadValue,
} from '../validation/field-errors.ts';

export function fieldDuplicate(field: string, value: BadValue): FieldError {
  return { field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${renderBadValue(value)}` };
}

export function fieldNotFound(field: string, value: BadValue, detail = ''): FieldError {
  const head = `Not found: ${renderBadValue(value)}`;
  return { field, reason: 'FieldValueNotFound', message: detail ? `${head}: ${detail}` : head };
}
