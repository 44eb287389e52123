// Builders for kube's field errors (apimachinery field.Required, field.Invalid, ...). `message` is
// what kube puts in a Status cause: the error body without the field, e.g.
// `Invalid value: "x": must be one of ...`.
import type { FieldError } from '../errors.ts';
import { goQuote, goValue } from './go-format.ts';
import { render } from './field-path.ts';
import type { Path } from './field-path.ts';

/** Marks a value kube leaves out of the message (field.TooMany with an unknown count). */
export const OMIT = Symbol('omit');

function make(
  reason: string,
  title: string,
  path: Path,
  value: unknown,
  detail: string,
  showValue: boolean,
): FieldError {
  let message = title;
  if (showValue && value !== OMIT) message += `: ${goValue(value)}`;
  if (detail) message += `: ${detail}`;
  return { field: render(path), reason, message };
}

export function required(path: Path, detail = ''): FieldError {
  return make('FieldValueRequired', 'Required value', path, '', detail, false);
}

export function forbidden(path: Path, detail: string): FieldError {
  return make('FieldValueForbidden', 'Forbidden', path, '', detail, false);
}

export function invalid(path: Path, value: unknown, detail: string): FieldError {
  return make('FieldValueInvalid', 'Invalid value', path, value, detail, true);
}

export function typeInvalid(path: Path, value: unknown, detail: string): FieldError {
  return make('FieldValueTypeInvalid', 'Invalid value', path, value, detail, true);
}

export function duplicate(path: Path, value: unknown): FieldError {
  return make('FieldValueDuplicate', 'Duplicate value', path, value, '', true);
}

export function notSupported(path: Path, value: unknown, valid: readonly string[]): FieldError {
  const detail = valid.length ? `supported values: ${valid.map((v) => goQuote(v)).join(', ')}` : '';
  return make('FieldValueNotSupported', 'Unsupported value', path, value, detail, true);
}

export function tooLong(path: Path, max: number): FieldError {
  const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return make('FieldValueTooLong', 'Too long', path, '', detail, false);
}

export function tooMany(path: Path, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return make('FieldValueTooMany', 'Too many', path, actual >= 0 ? actual : OMIT, detail, true);
}

/** apimachinery's ValidateImmutableField. */
export function immutable(path: Path, value: unknown): FieldError {
  return invalid(path, value, 'field is immutable');
}
