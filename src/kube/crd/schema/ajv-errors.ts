// Turns ajv's errors into the field errors kube-apiserver reports for the same value, with
// kube-openapi's texts (`spec.replicas in body must be of type integer: "string"`), its field
// names, its reasons, and its order: per value, type first, then anyOf/oneOf/allOf/not, string,
// number checks, then the children, then required.
//
// Composite keywords get kube-openapi's treatment: a failed anyOf/oneOf reports its own message
// (field "<nil>", as kube does) followed by the errors of the best-matching branch only.
import type { ErrorObject } from 'ajv';
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { child } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
} from '../../../apimachinery/validation/field-errors.ts';
import { goFloat, goJson, goNumber } from '../../../apimachinery/strings/go-format.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { ALL_OF, NOTE } from './json-schema.ts';
import type { AjvSchema, KubeNote } from './json-schema.ts';
import { goQuote } from '../../../apimachinery/strings/goquote.ts';

export interface ErrorContext {
  /** The validated value (ajv's root). */
  data: unknown;
  /** The translated root schema. */
  schema: AjvSchema;
  /** Where the value sits in the object: null for a whole custom resource, `status` for /status. */
  basePath: Path;
}

interface Item {
  key: number[];
  errors: FieldError[];
}

const COMPOSITES = new Set(['anyOf', 'oneOf', 'not', ALL_OF]);

export function toFieldErrors(errors: readonly ErrorObject[], ctx: ErrorContext): FieldError[] {
  return flatten(convert(errors, 0, ctx));
}

function flatten(items: Item[]): FieldError[] {
  const sorted = items.map((it, i) => ({ it, i })).sort((a, b) => compareKeys(a.it.key, b.it.key) || a.i - b.i);
  return sorted.flatMap(({ it }) => it.errors);
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Where a schema path meets its first composite keyword at or after segment `start`: that
 * segment's index (-1 for none) and how many data levels the path has descended by then.
 */
function compositeAt(segs: string[], start: number): { at: number; depth: number } {
  let depth = 0;
  let i = 0;
  while (i < segs.length) {
    const s = segs[i];
    if (s === 'properties') {
      depth++;
      i += 2;
    } else if (s === 'items' || s === 'additionalProperties') {
      depth++;
      i++;
    } else if (COMPOSITES.has(s)) {
      if (i >= start) return { at: i, depth };
      i += s === 'not' ? 1 : s === ALL_OF ? 3 : 2;
    } else return { at: -1, depth };
  }
  return { at: -1, depth };
}

interface Node {
  /** kube-openapi's name for the value: `spec.items[0].name`, `.key` for a map key at the root. */
  name: string;
  value: unknown;
  order: number[];
}

/** Walks data and schema together to name a value the way kube-openapi does. */
function locate(segs: string[], ctx: ErrorContext): Node {
  let name = '';
  let value = ctx.data;
  let schema: AjvSchema | undefined = ctx.schema;
  const order: number[] = [];
  for (const seg of segs) {
    if (Array.isArray(value)) {
      const i = Number(seg);
      name = `${name}[${i}]`;
      order.push(i);
      value = value[i];
      schema = isObject(schema?.items) ? (schema.items as AjvSchema) : undefined;
      continue;
    }
    const props = isObject(schema?.properties) ? (schema.properties as Record<string, AjvSchema>) : undefined;
    if (props && Object.prototype.hasOwnProperty.call(props, seg)) {
      name = name ? `${name}.${seg}` : seg;
      schema = props[seg];
    } else {
      name = `${name}.${seg}`;
      schema = isObject(schema?.additionalProperties) ? (schema.additionalProperties as AjvSchema) : undefined;
    }
    const obj = isObject(value) ? value : {};
    order.push(Object.keys(obj).indexOf(seg));
    value = obj[seg];
  }
  return { name, value, order };
}

function fieldOf(name: string, ctx: ErrorContext): Path {
  return name === '' || name === '.' ? ctx.basePath : child(ctx.basePath, name.replace(/^\./, ''));
}

function key(order: number[], phase: number, rank: number): number[] {
  return [...order.flatMap((o) => [1, o]), phase, rank];
}

function convert(errors: readonly ErrorObject[], start: number, ctx: ErrorContext): Item[] {
  const groups = new Map<string, { at: number; depth: number; errors: ErrorObject[] }>();
  const plain: ErrorObject[] = [];
  for (const e of errors) {
    const segs = e.schemaPath.split('/').slice(1);
    const { at, depth } = compositeAt(segs, start);
    if (at < 0) {
      plain.push(e);
      continue;
    }
    const inst = pointerSegments(e.instancePath).slice(0, depth);
    const id = `${JSON.stringify(inst)}|${segs.slice(0, at + 1).join('/')}`;
    const g = groups.get(id) ?? { at, depth, errors: [] };
    g.errors.push(e);
    groups.set(id, g);
  }
  const items = plainItems(plain, ctx);
  for (const g of groups.values()) items.push(compositeItem(g.errors, g.at, g.depth, ctx));
  return items;
}

function plainItems(errors: ErrorObject[], ctx: ErrorContext): Item[] {
  // kube's string validator stops at its first failure: maxLength, then minLength, then pattern.
  const failed = new Set(errors.map((e) => `${e.instancePath}|${e.keyword}`));
  const shadowed = (e: ErrorObject) =>
    (e.keyword === 'minLength' && failed.has(`${e.instancePath}|maxLength`)) ||
    (e.keyword === 'pattern' &&
      (failed.has(`${e.instancePath}|maxLength`) || failed.has(`${e.instancePath}|minLength`)));
  return errors
    .filter((e) => !shadowed(e))
    .map((e) => {
      const node = locate(pointerSegments(e.instancePath), ctx);
      const [phase, rank] = placement(e.keyword, node.value);
      return { key: key(node.order, phase, rank), errors: plainErrors(e, node, ctx) };
    });
}

function placement(keyword: string, value: unknown): [number, number] {
  const ranks: Record<string, [number, number]> = {
    type: [0, 0],
    anyOf: [0, 1],
    oneOf: [0, 1.1],
    [ALL_OF]: [0, 1.2],
    not: [0, 1.3],
    maxLength: [0, 2],
    minLength: [0, 3],
    pattern: [0, 4],
    format: [0, 5],
    'x-kube-number': [0, 6],
    multipleOf: [0, 7],
    minimum: [0, 8],
    exclusiveMinimum: [0, 8],
    maximum: [0, 9],
    exclusiveMaximum: [0, 9],
    minProperties: [0, 11],
    maxProperties: [0, 11.5],
    additionalProperties: [0, 12],
    minItems: [2, 20],
    maxItems: [2, 21],
    uniqueItems: [2, 22],
    required: [2, 30],
  };
  if (keyword === 'enum') return Array.isArray(value) ? [2, 23] : [0, 10];
  return ranks[keyword] ?? [0, 40];
}

function noteOf(e: ErrorObject): KubeNote {
  const n = isObject(e.parentSchema) ? (e.parentSchema as AjvSchema)[NOTE] : undefined;
  return (n as KubeNote | undefined) ?? { type: '', format: '' };
}

/** The JSON type kube's decoder gives a value: integral numbers are int64, others float64. */
function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** The Go format kube-openapi infers for a decoded value (int64, float64 or none). */
function goFormatOf(v: unknown): string {
  if (typeof v !== 'number') return '';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/** Bounds print as int64 when the value is an integer (kube compares natively), as float64 otherwise. */
function bound(limit: number, value: unknown): string {
  return typeof value === 'number' && Number.isInteger(value) ? goNumber(Math.trunc(limit)) : goFloat(limit);
}

function plainErrors(e: ErrorObject, node: Node, ctx: ErrorContext): FieldError[] {
  const P = node.name;
  const field = fieldOf(P, ctx);
  const value = node.value;
  const note = noteOf(e);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type': {
      if (value === null || value === undefined) {
        return [fieldTypeInvalid(field, 'null', `${P} in body must be of type ${note.type}: "null"`)];
      }
      const actual = jsonType(value);
      const formatMismatch =
        note.format && actual !== 'string' && actual !== 'array' && goFormatOf(value) !== note.format;
      if (formatMismatch) {
        const f = goFormatOf(value);
        return [fieldTypeInvalid(field, f, `${P} in body must be of type ${note.format}: ${goQuote(f)}`)];
      }
      return [fieldTypeInvalid(field, actual, `${P} in body must be of type ${note.type}: ${goQuote(actual)}`)];
    }
    case 'required': {
      const missing = String(params.missingProperty);
      return [fieldRequired(fieldOf(`${P}.${missing}`, ctx))];
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? v : goJson(v)));
      return [fieldNotSupported(field, value ?? null, allowed)];
    }
    case 'maxLength':
      return [fieldTooLong(field, Number(params.limit))];
    case 'minLength':
      return [fieldInvalid(field, value, `${P} in body should be at least ${Number(params.limit)} chars long`)];
    case 'pattern':
      return [fieldInvalid(field, value, `${P} in body should match '${note.pattern ?? String(params.pattern)}'`)];
    case 'format':
      return [fieldTypeInvalid(field, value, `${P} in body must be of type ${note.format}: ${goQuote(String(value))}`)];
    case 'maximum':
    case 'exclusiveMaximum':
    case 'minimum':
    case 'exclusiveMinimum': {
      const limit = Number(params.limit);
      const words = {
        maximum: 'less than or equal to',
        exclusiveMaximum: 'less than',
        minimum: 'greater than or equal to',
        exclusiveMinimum: 'greater than',
      }[e.keyword];
      return [fieldInvalid(field, value, `${P} in body should be ${words} ${bound(limit, value)}`)];
    }
    case 'multipleOf':
      return [
        fieldInvalid(field, value, `${P} in body should be a multiple of ${bound(Number(params.multipleOf), value)}`),
      ];
    case 'maxItems':
      return [fieldTooMany(field, Array.isArray(value) ? value.length : -1, Number(params.limit))];
    case 'minItems':
      return [
        fieldInvalid(
          field,
          Array.isArray(value) ? value.length : 0,
          `${P} in body should have at least ${Number(params.limit)} items`,
        ),
      ];
    case 'maxProperties':
      return [fieldTooMany(field, isObject(value) ? Object.keys(value).length : -1, Number(params.limit))];
    case 'minProperties':
      return [
        fieldInvalid(
          field,
          isObject(value) ? Object.keys(value).length : 0,
          `${P} in body should have at least ${Number(params.limit)} properties`,
        ),
      ];
    case 'uniqueItems':
      return [fieldInvalid(field, '', `${P} in body shouldn't contain duplicates`)];
    case 'additionalProperties':
      return [
        fieldInvalid(
          field,
          String(params.additionalProperty),
          `${P}.${String(params.additionalProperty)} in body is a forbidden property`,
        ),
      ];
    case 'x-kube-number': {
      const format = String(params.format ?? '');
      const what = format ? `with format ${format}` : '(default format)';
      return [fieldInvalid(ctx.basePath, '', `Checked value must be of type ${String(params.type)} ${what} in ${P}`)];
    }
    default:
      return [fieldInvalid(field, value ?? '', e.message ?? e.keyword)];
  }
}

function compositeItem(errors: ErrorObject[], at: number, depth: number, ctx: ErrorContext): Item {
  const own = errors.find((e) => e.schemaPath.split('/').length - 1 === at + 1 && COMPOSITES.has(e.keyword));
  const kind = own?.keyword ?? 'anyOf';
  const anyErr = own ?? errors[0];
  const node = locate(pointerSegments(anyErr.instancePath).slice(0, depth), ctx);
  const [phase, rank] = placement(kind, node.value);
  const P = goQuote(node.name);
  const branchAt = kind === ALL_OF ? at + 2 : at + 1;
  const branches = new Map<number, ErrorObject[]>();
  for (const e of errors) {
    if (e === own) continue;
    const b = Number(e.schemaPath.split('/').slice(1)[branchAt]);
    branches.set(b, [...(branches.get(b) ?? []), e]);
  }
  const branchErrors = (b: number) => flatten(convert(branches.get(b) ?? [], branchAt + 1, ctx));
  // kube keeps the branch that passed the most checks (MatchCount); fewest errors, first on a tie, stands in for it.
  const best = () => {
    let choice: FieldError[] = [];
    for (const b of [...branches.keys()].sort((x, y) => x - y)) {
      const errs = branchErrors(b);
      if (choice.length === 0 || errs.length < choice.length) choice = errs;
    }
    return choice;
  };
  const out: FieldError[] = [];
  if (kind === 'anyOf') {
    out.push(fieldInvalid(ctx.basePath, '', `${P} must validate at least one schema (anyOf)`), ...best());
  } else if (kind === 'oneOf') {
    const passing = (own?.params as { passingSchemas?: number[] | null } | undefined)?.passingSchemas;
    const found = passing ? `Found ${passing.length} valid alternatives` : 'Found none valid';
    out.push(fieldInvalid(ctx.basePath, '', `${P} must validate one and only one schema (oneOf). ${found}`));
    if (!passing) out.push(...best());
  } else if (kind === ALL_OF) {
    for (const b of [...branches.keys()].sort((x, y) => x - y)) out.push(...branchErrors(b));
    const total = Array.isArray(own?.schema) ? own.schema.length : branches.size;
    const none = branches.size === total ? '. None validated' : '';
    out.push(fieldInvalid(ctx.basePath, '', `${P} must validate all the schemas (allOf)${none}`));
  } else {
    out.push(fieldInvalid(ctx.basePath, '', `${P} must not validate the schema (not)`));
  }
  return { key: key(node.order, phase, rank), errors: out };
}
