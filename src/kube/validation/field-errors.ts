// Builders for FieldError in the shape of apimachinery's field.Error. `message` is what Go calls
// ErrorBody() ("Invalid value: \"x\": detail"): it becomes the Status cause message, and
// `invalid()` in errors.ts prefixes it with the field path for the top-level message.
import type { FieldError } from '../errors.ts';
import { goQuote } from '../util/goquote.ts';

/** A value already rendered the way Go's `%#v` would print it (structs, slices). */
export class GoValue {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export type BadValue = string | number | bigint | boolean | null | undefined | GoValue;

/** How field.Error.ErrorBody prints a bad value. */
export function renderBadValue(value: BadValue): string {
  if (value instanceof GoValue) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  return String(value);
}

// Marks error kinds whose body never shows the value (Required, Forbidden, TooLong).
const OMIT = Symbol('omit');

function body(type: string, value: BadValue | typeof OMIT, detail: string): string {
  const head = value === OMIT ? type : `${type}: ${renderBadValue(value)}`;
  return detail ? `${head}: ${detail}` : head;
}

export function fieldInvalid(field: string, value: BadValue, detail: string): FieldError {
  return { field, reason: 'FieldValueInvalid', message: body('Invalid value', value, detail) };
}

export function fieldRequired(field: string, detail = ''): FieldError {
  return { field, reason: 'FieldValueRequired', message: body('Required value', OMIT, detail) };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { field, reason: 'FieldValueForbidden', message: body('Forbidden', OMIT, detail) };
}

export function fieldTooLong(field: string, maxBytes: number): FieldError {
  return {
    field,
    reason: 'FieldValueTooLong',
    message: body('Too long', OMIT, `may not be more than ${maxBytes} bytes`),
  };
}

export function fieldNotSupported(field: string, value: BadValue, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return { field, reason: 'FieldValueNotSupported', message: body('Unsupported value', value, detail) };
}

/** field.Path.Child: `metadata` + `name` → `metadata.name`. */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** field.Path.Index / Key: `containers` + 0 → `containers[0]`. */
export function index(path: string, key: number | string): string {
  return `${path}[${key}]`;
}
