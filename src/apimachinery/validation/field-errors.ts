// Field errors in the shape of apimachinery's field.Error. `message` is what Go calls ErrorBody()
// (`Invalid value: "x": detail`): it becomes the Status cause message, and the `invalid()` Status
// error prefixes it with the field path for the top-level message. Values are printed the way Go's
// fmt prints them, because clients show these strings verbatim.
import type { StatusCause } from '../meta/status.ts';
import { goValue } from '../strings/go-format.ts';
import { goQuote } from '../strings/goquote.ts';
import { render, type Path } from './field-path.ts';

/** Field-level problem collected by validators before being turned into one `invalid` error. */
export interface FieldError {
  /** Kubernetes field path, e.g. `metadata.labels` or `spec.containers[0].name`. */
  field: string;
  /** client-go's cause reasons: FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, FieldValueDuplicate, FieldValueForbidden, FieldValueTooLong, FieldValueTypeInvalid. */
  reason: string;
  message: string;
}

export function toCauses(errors: FieldError[]): StatusCause[] {
  return errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
}

/** A value already rendered the way Go's `%#v` would print it (structs, slices). */
export class GoValue {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** How field.Error.ErrorBody prints a bad value: `%q` strings, `%v` numbers and booleans, JSON otherwise. */
export function renderBadValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (typeof value === 'bigint') return value.toString();
  return goValue(value);
}

/** Marks a value left out of the message (field.TooMany with an unknown count). */
export const OMIT = Symbol('omit');

function fieldError(reason: string, title: string, path: Path, value: unknown, detail: string): FieldError {
  let message = value === OMIT ? title : `${title}: ${renderBadValue(value)}`;
  if (detail) message += `: ${detail}`;
  return { field: render(path), reason, message };
}

export function fieldRequired(path: Path, detail = ''): FieldError {
  return fieldError('FieldValueRequired', 'Required value', path, OMIT, detail);
}

export function fieldForbidden(path: Path, detail: string): FieldError {
  return fieldError('FieldValueForbidden', 'Forbidden', path, OMIT, detail);
}

export function fieldInvalid(path: Path, value: unknown, detail: string): FieldError {
  return fieldError('FieldValueInvalid', 'Invalid value', path, value, detail);
}

export function fieldTypeInvalid(path: Path, value: unknown, detail: string): FieldError {
  return fieldError('FieldValueTypeInvalid', 'Invalid value', path, value, detail);
}

export function fieldDuplicate(path: Path, value: unknown): FieldError {
  return fieldError('FieldValueDuplicate', 'Duplicate value', path, value, '');
}

export function fieldNotFound(path: Path, value: unknown, detail = ''): FieldError {
  return fieldError('FieldValueNotFound', 'Not found', path, value, detail);
}

export function fieldNotSupported(path: Path, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map((v) => goQuote(v)).join(', ')}` : '';
  return fieldError('FieldValueNotSupported', 'Unsupported value', path, value, detail);
}

/** `max` < 0 when the limit is unknown. */
export function fieldTooLong(path: Path, max: number): FieldError {
  const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return fieldError('FieldValueTooLong', 'Too long', path, OMIT, detail);
}

/** `actual` < 0 when the count is unknown, `max` < 0 when the limit is. */
export function fieldTooMany(path: Path, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return fieldError('FieldValueTooMany', 'Too many', path, actual >= 0 ? actual : OMIT, detail);
}

/** apimachinery's ValidateImmutableField. */
export function fieldImmutable(path: Path, value: unknown): FieldError {
  return fieldInvalid(path, value, 'field is immutable');
}
