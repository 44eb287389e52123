// Validates values against CRD schema nodes with ajv, compiled once per schema node and kept as
// long as the node is. Errors come back as kube's field errors (see ajv-errors.ts).
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { toFieldErrors } from './ajv-errors.ts';
import { STRING_FORMATS } from './formats.ts';
import { goRegExp } from './go-regexp.ts';
import { ALL_OF, NUMBER_RANGE, toJsonSchema } from './json-schema.ts';
import { ratchet } from './ratcheting.ts';
import type { Structural } from './structural.ts';
import type { AjvSchema } from './json-schema.ts';

/** CRD patterns are Go regular expressions; one JavaScript cannot express is not enforced rather than wrongly enforced. */
const goRegExpEngine = Object.assign(
  (pattern: string) => {
    const r = goRegExp(pattern);
    return r.ok ? r.regexp : { test: () => true };
  },
  { code: 'goRegExp' },
);

interface RangeSchema {
  type: string;
  format: string;
}

/** kube-openapi's IsValueValidAgainstRange ("Checked value must be of type ..."). */
function numberRange(schema: RangeSchema, data: number): boolean {
  const ok =
    schema.type === 'integer'
      ? Number.isInteger(data) &&
        Math.abs(data) < 2 ** 63 &&
        (schema.format !== 'int32' || (data >= -(2 ** 31) && data < 2 ** 31))
      : Number.isFinite(Math.fround(data));
  if (!ok) numberRange.errors = [{ keyword: NUMBER_RANGE, message: 'out of range', params: { ...schema } }];
  return ok;
}
numberRange.errors = [] as Partial<ErrorObject>[];

function createAjv(): Ajv {
  const formats: Record<string, { type: 'string'; validate: (s: string) => boolean }> = {};
  for (const [name, validate] of Object.entries(STRING_FORMATS)) formats[`k8s-${name}`] = { type: 'string', validate };
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    verbose: true,
    validateSchema: false,
    formats,
    code: { regExp: goRegExpEngine },
  });
  ajv.addKeyword({ keyword: ALL_OF, macro: (branches: unknown) => ({ allOf: branches }) });
  ajv.addKeyword({ keyword: NUMBER_RANGE, type: 'number', schemaType: 'object', errors: true, validate: numberRange });
  return ajv;
}

const ajv = createAjv();

interface Compiled {
  fn: ValidateFunction | undefined;
  schema: AjvSchema;
}

const compiled = new WeakMap<JsonObject, Compiled>();

function compile(raw: JsonObject): Compiled {
  let c = compiled.get(raw);
  if (!c) {
    const schema = toJsonSchema(raw);
    let fn: ValidateFunction | undefined;
    try {
      fn = ajv.compile(schema);
    } catch {
      // A schema ajv cannot compile was rejected when its CRD was written; nothing to enforce.
      fn = undefined;
    }
    // The function keeps working; ajv's own cache would otherwise pin every schema ever compiled.
    ajv.removeSchema(schema);
    c = { fn, schema };
    compiled.set(raw, c);
  }
  return c;
}

/** The stored value and its schema, for ratcheting an update. */
export interface Previous {
  value: unknown;
  schema?: Structural;
}

/**
 * Validates `value` against the schema node `raw`; `basePath` is the value's place in the object
 * (null at the root). With `previous`, errors about unchanged values are ratcheted away.
 */
export function validateValue(raw: JsonObject, value: unknown, basePath: Path, previous?: Previous): FieldError[] {
  const { fn, schema } = compile(raw);
  if (!fn || fn(value)) return [];
  const errors = previous ? ratchet(fn.errors ?? [], value, previous.value, previous.schema) : (fn.errors ?? []);
  return errors.length ? toFieldErrors(errors, { data: value, schema, basePath }) : [];
}
