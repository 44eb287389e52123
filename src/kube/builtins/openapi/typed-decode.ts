// Typed decoding of built-in kinds: kube-apiserver decodes every body into the kind's Go struct,
// so a value of the wrong JSON type is refused before anything else looks at it. This walks a
// body against the same hand-written models the server serves (BUILTIN_MODELS) and reports what
// Go's decoders would, in their words. Only what the models describe is checked: open parts,
// free-form nodes and fields the models do not know are never refused here.
//
// kube decodes through three different decoders, whose errors differ:
// - 'json': encoding/json (sigs.k8s.io/json), for create, update and JSON/merge patch results.
//   It reports the first type error with the innermost struct and the field path
//   (`json: cannot unmarshal number into Go struct field ConfigMap.data of type string`), unless
//   a custom unmarshaler (Quantity, IntOrString, Time) fails, which stops decoding at once.
// - 'unstructured': runtime.DefaultUnstructuredConverter.FromUnstructured, for strategic merge
//   patch results (apimachinery/pkg/runtime/converter.go): `cannot convert int64 to string`.
// - 'apply': structured-merge-diff's typed conversion of an apply configuration
//   (`.data.k: expected string, got &value.valueUnstructured{Value:5}`), every error reported.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { escapePointerToken, floatLiteralsOf, isObject } from '../../../apimachinery/json/index.ts';
import { quantityFromJSON, QuantityError } from '../../../apimachinery/quantity/quantity.ts';
import { compareStrings, goBase64Error, goFloat, goNumber, goQuote } from '../../../apimachinery/strings/index.ts';
import { BUILTIN_MODELS, builtinModel } from './index.ts';
import { INLINE_STRUCTS, NAMED_STRINGS } from './go-types.ts';
import { INT_OR_STRING, META, QUANTITY, asSchema, refName, type Schema } from './schema.ts';

export type DecodeFlavour = 'json' | 'unstructured' | 'apply';

const TIME_MODELS = new Set([`${META}.Time`, `${META}.MicroTime`]);
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const INT64 = { min: -(2 ** 63), max: 2 ** 63 - 1 };

/**
 * What Go's decoder says about `obj` (a built-in kind), or nothing when it decodes. 'json' and
 * 'unstructured' give at most one message (decoding stops); 'apply' gives every problem.
 * apiVersion and kind are not looked at: the caller checks them first.
 */
export function decodeErrors(
  group: string,
  version: string,
  kind: string,
  obj: JsonObject,
  flavour: DecodeFlavour,
): string[] {
  const found: Found[] = [];
  const model = builtinModel(group, version, kind);
  // Only encoding/json sees the body's text; the other decoders get numbers as values.
  const walker = new Walker(flavour, found, flavour === 'json' ? floatLiteralsOf(obj) : undefined);
  walker.struct(model.schema, obj, { struct: kind, stack: [], smd: '', ptr: '' }, kind, 0);
  if (found.length === 0) return [];
  if (flavour === 'apply') return found.map((f) => f.message);
  return [(found.find((f) => f.abort) ?? found[0]).message];
}

interface Found {
  message: string;
  /** A custom unmarshaler's error: encoding/json returns it at once, dropping earlier type errors. */
  abort: boolean;
}

/** Where a value sits: the innermost Go struct, encoding/json's field stack, the apply path. */
interface At {
  struct: string;
  stack: string[];
  smd: string;
  /** JSON pointer of the value in the body (where a float literal is looked up). */
  ptr: string;
}

function resolve(s: Schema): { node?: Schema; model?: string } {
  let model: string | undefined;
  for (let hops = 0; hops < 16; hops++) {
    const name = refName(s);
    if (name === undefined) return { node: s, model };
    model = name;
    const next = BUILTIN_MODELS.get(name);
    if (!next) return { model };
    s = next;
  }
  return {};
}

function shortName(model: string): string {
  return model.slice(model.lastIndexOf('.') + 1);
}

/** The Go package name kube's types live in, as reflect prints it: v1 for every served version. */
function goPackage(model: string): string {
  if (model === QUANTITY) return 'resource';
  if (model === INT_OR_STRING) return 'intstr';
  const parts = model.split('.');
  return parts[parts.length - 2];
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** reflect.Type.String() of the Go type a model node decodes into; `holder` is `Struct.field`. */
function goTypeOf(schemaIn: Schema, holder: string): string {
  const { node, model } = resolve(schemaIn);
  if (model) return `${goPackage(model)}.${shortName(model)}`;
  if (!node) return 'interface {}';
  switch (node.type) {
    case 'string':
      return NAMED_STRINGS[holder] ?? (node.format === 'byte' ? '[]uint8' : 'string');
    case 'integer':
      return node.format === 'int64' ? 'int64' : 'int32';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float64';
    case 'array': {
      const items = asSchema(node.items);
      return NAMED_STRINGS[holder] ?? `[]${items ? goTypeOf(items, holder) : 'interface {}'}`;
    }
    case 'object': {
      const additional = asSchema(node.additionalProperties);
      if (additional && !node.properties) {
        if (resolve(additional).model === QUANTITY) return 'v1.ResourceList';
        return `map[string]${goTypeOf(additional, holder)}`;
      }
      return `v1.${inlineStructName(holder)}`;
    }
    default:
      return 'interface {}';
  }
}

function inlineStructName(holder: string): string {
  return INLINE_STRUCTS[holder] ?? capitalize(holder.slice(holder.indexOf('.') + 1));
}

/**
 * The JSON value as encoding/json names it in "cannot unmarshal X" (with the literal for integers:
 * as written when the body had a fraction or exponent, which JSON.parse forgets).
 */
function jsonDescription(v: JsonValue, intTarget: boolean, literal?: string): string {
  if (typeof v === 'number') return intTarget ? `number ${literal ?? numberLiteral(v)}` : 'number';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

function numberLiteral(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? BigInt(n).toString() : String(n);
}

/** The Go kind of a value decoded as unstructured JSON (int64 for integers, as kube's decoder keeps them). */
function unstructuredKind(v: JsonValue): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** fmt's %v (and %+v) of a value decoded as unstructured JSON (integers kept as int64). */
export function goPlain(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goPlain).join(' ')}]`;
  const keys = Object.keys(v).sort(compareStrings);
  return `map[${keys.map((k) => `${k}:${goPlain(v[k] as JsonValue)}`).join(' ')}]`;
}

/** fmt's %#v of a value decoded as unstructured JSON. */
function goSharp(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return Number.isInteger(v) ? goNumber(v) : goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharp).join(', ')}}`;
  const keys = Object.keys(v).sort(compareStrings);
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharp(v[k] as JsonValue)}`).join(', ')}}`;
}

/** fmt's %T of a value decoded as unstructured JSON. */
function goTypeName(v: JsonValue): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** structured-merge-diff's value.ToString, for list keys in apply paths. */
function smdKeyValue(v: JsonValue): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  return goPlain(v);
}

type ScalarKind = 'string' | 'int32' | 'int64' | 'bool' | 'float64';

class Walker {
  private done = false;

  constructor(
    private readonly flavour: DecodeFlavour,
    private readonly found: Found[],
    /** The body's numbers written with a fraction or exponent, by JSON pointer (float-literals.ts). */
    private readonly floats?: ReadonlyMap<string, string>,
  ) {}

  private report(message: string, abort: boolean): void {
    this.found.push({ message, abort });
    // FromUnstructured stops at its first error; encoding/json stops at a custom unmarshaler's.
    if (this.flavour === 'unstructured' || (this.flavour === 'json' && abort)) this.done = true;
  }

  private typeError(at: At, v: JsonValue, goType: string, intTarget: boolean, abort = false): void {
    const field = [at.struct, ...at.stack].join('.');
    const literal = this.floats?.get(at.ptr);
    this.report(
      `json: cannot unmarshal ${jsonDescription(v, intTarget, literal)} into Go struct field ${field} of type ${goType}`,
      abort,
    );
  }

  /** An integer field given a number written with a fraction or exponent (`2.0`, `1e3`). */
  private floatLiteralForInt(at: At): boolean {
    return this.floats?.has(at.ptr) ?? false;
  }

  private applyError(at: At, message: string): void {
    this.report(at.smd ? `${at.smd}: ${message}` : message, false);
  }

  /** Visits `v` (not null) as the model node `schemaIn`, the value of field `holder` (`Struct.field`). */
  visit(schemaIn: Schema, v: JsonValue | undefined, at: At, holder: string, depth: number): void {
    // encoding/json leaves a field alone on null, whatever its type; so do the other decoders.
    if (this.done || v === null || v === undefined || depth > 64) return;
    const { node, model } = resolve(schemaIn);
    if (model === QUANTITY) return this.quantity(v);
    if (model === INT_OR_STRING) return this.intOrString(v, at);
    if (model !== undefined && TIME_MODELS.has(model)) return this.time(v, at);
    if (!node) return;
    const goType = goTypeOf(schemaIn, holder);
    switch (node.type) {
      case 'string':
        return node.format === 'byte' ? this.bytes(v, at, goType) : this.scalar('string', v, at, goType);
      case 'integer':
        return this.scalar(node.format === 'int64' ? 'int64' : 'int32', v, at, goType);
      case 'boolean':
        return this.scalar('bool', v, at, goType);
      case 'number':
        return this.scalar('float64', v, at, goType);
      case 'array':
        return this.list(node, v, at, holder, goType, depth);
      case 'object': {
        const additional = asSchema(node.additionalProperties);
        if (node.properties) {
          const name = model ? shortName(model) : inlineStructName(holder);
          return this.struct(node, v, at, name, depth, goType);
        }
        if (additional) return this.map(additional, v, at, holder, goType, depth);
        return; // free-form (FieldsV1, Patch): anything goes
      }
    }
  }

  struct(node: Schema, v: JsonValue, at: At, name: string, depth: number, goType = ''): void {
    if (!isObject(v)) {
      if (this.flavour === 'json') this.typeError(at, v, goType, false);
      else if (this.flavour === 'unstructured')
        this.report(`cannot restore struct from: ${unstructuredKind(v)}`, false);
      else this.applyError(at, `expected map, got &{${goPlain(v)}}`);
      return;
    }
    const props = asSchema(node.properties) ?? {};
    // FromUnstructured walks the struct's fields in Go order (the models keep it); the others
    // follow the document.
    const keys = this.flavour === 'unstructured' ? Object.keys(props) : Object.keys(v);
    for (const k of keys) {
      if (this.done) return;
      if (!Object.hasOwn(props, k) || !Object.hasOwn(v, k)) continue;
      // apiVersion and kind are the caller's (they pick the Go type itself).
      if (depth === 0 && (k === 'apiVersion' || k === 'kind')) continue;
      const child = asSchema(props[k]);
      if (!child) continue;
      const next: At = {
        struct: name,
        stack: [...at.stack, k],
        smd: `${at.smd}.${k}`,
        ptr: `${at.ptr}/${escapePointerToken(k)}`,
      };
      this.visit(child, v[k], next, `${name}.${k}`, depth + 1);
    }
  }

  private map(value: Schema, v: JsonValue, at: At, holder: string, goType: string, depth: number): void {
    if (!isObject(v)) {
      if (this.flavour === 'json') this.typeError(at, v, goType, false);
      else if (this.flavour === 'unstructured') this.report(`cannot restore map from ${unstructuredKind(v)}`, false);
      else this.applyError(at, `expected map, got &{${goPlain(v)}}`);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (this.done) return;
      // encoding/json does not put map keys on its field stack.
      this.visit(
        value,
        x,
        { ...at, smd: `${at.smd}.${k}`, ptr: `${at.ptr}/${escapePointerToken(k)}` },
        holder,
        depth + 1,
      );
    }
  }

  private list(node: Schema, v: JsonValue, at: At, holder: string, goType: string, depth: number): void {
    if (!Array.isArray(v)) {
      if (this.flavour === 'json') this.typeError(at, v, goType, false);
      else if (this.flavour === 'unstructured') this.report(`cannot restore slice from ${unstructuredKind(v)}`, false);
      else this.applyError(at, `expected list, got &{${goPlain(v)}}`);
      return;
    }
    const items = asSchema(node.items);
    if (!items) return;
    const keys = node['x-kubernetes-list-map-keys'];
    const listType = node['x-kubernetes-list-type'];
    v.forEach((item, i) => {
      if (this.done) return;
      const next = { ...at, smd: at.smd + itemElement(listType, keys, item, i), ptr: `${at.ptr}/${i}` };
      this.visit(items, item, next, holder, depth + 1);
    });
  }

  private scalar(kind: ScalarKind, v: JsonValue, at: At, goType: string): void {
    const intTarget = kind === 'int32' || kind === 'int64';
    if (this.flavour === 'json') {
      if (!fitsJson(kind, v) || (intTarget && this.floatLiteralForInt(at))) this.typeError(at, v, goType, intTarget);
      return;
    }
    if (this.flavour === 'unstructured') {
      const problem = unstructuredScalarProblem(kind, v, goType);
      if (problem) this.report(problem, false);
      return;
    }
    if (kind === 'string') {
      if (typeof v !== 'string')
        this.applyError(at, `expected string, got &value.valueUnstructured{Value:${goSharp(v)}}`);
    } else if (kind === 'bool') {
      if (typeof v !== 'boolean') this.applyError(at, `expected boolean, got &{${goPlain(v)}}`);
    } else if (typeof v !== 'number') {
      this.applyError(at, `expected numeric (int or float), got ${goTypeName(v)}`);
    }
  }

  private bytes(v: JsonValue, at: At, goType: string): void {
    // A JSON string is base64 for []byte (Go's decoder saves its error and goes on, as for a type
    // error; the unstructured converter wraps it); an array of numbers also decodes. Apply's typed
    // conversion takes any string.
    if (typeof v === 'string') {
      const problem = this.flavour === 'apply' ? undefined : goBase64Error(v);
      if (problem === undefined) return;
      this.report(this.flavour === 'unstructured' ? `error decoding from json: ${problem}` : problem, false);
      return;
    }
    if (Array.isArray(v)) return;
    if (this.flavour === 'json') this.typeError(at, v, goType, false);
    else if (this.flavour === 'unstructured') this.report(`cannot restore slice from ${unstructuredKind(v)}`, false);
    else this.applyError(at, `expected string, got &value.valueUnstructured{Value:${goSharp(v)}}`);
  }

  /** resource.Quantity's UnmarshalJSON: the same in every decoder; apply takes any scalar. */
  private quantity(v: JsonValue): void {
    if (this.flavour === 'apply') return;
    try {
      // A quantity too large to compute with would fail every later use of it.
      quantityFromJSON(v).scaledValue(-9);
    } catch (e) {
      if (e instanceof QuantityError || e instanceof RangeError) this.report(e.message, true);
      else throw e;
    }
  }

  /** intstr.IntOrString's UnmarshalJSON: a string, or json.Unmarshal into its int32. */
  private intOrString(v: JsonValue, at: At): void {
    const float = this.flavour === 'json' && this.floatLiteralForInt(at);
    if (this.flavour === 'apply' || typeof v === 'string' || (fitsJson('int32', v) && !float)) return;
    if (this.flavour === 'json') this.typeError(at, v, 'int32', true, true);
    else this.report(`json: cannot unmarshal ${jsonDescription(v, true)} into Go value of type int32`, true);
  }

  /** metav1.Time's UnmarshalJSON: json.Unmarshal into a string first. */
  private time(v: JsonValue, at: At): void {
    if (typeof v === 'string') return;
    if (this.flavour === 'json') this.typeError(at, v, 'string', false, true);
    else if (this.flavour === 'unstructured')
      this.report(`json: cannot unmarshal ${jsonDescription(v, false)} into Go value of type string`, true);
    else this.applyError(at, `expected string, got &value.valueUnstructured{Value:${goSharp(v)}}`);
  }
}

function fitsJson(kind: ScalarKind, v: JsonValue): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'float64':
      return typeof v === 'number';
    case 'int32':
    case 'int64': {
      const range = kind === 'int32' ? INT32 : INT64;
      return typeof v === 'number' && Number.isInteger(v) && v >= range.min && v <= range.max;
    }
  }
}

/**
 * converter.go fromUnstructured for a simple Go kind: integers convert to any number kind,
 * integral floats to integers, and nothing crosses between strings, booleans and numbers.
 */
function unstructuredScalarProblem(kind: ScalarKind, v: JsonValue, goType: string): string | undefined {
  const src = unstructuredKind(v);
  const numberTarget = kind === 'int32' || kind === 'int64' || kind === 'float64';
  if (src === 'string' && kind === 'string') return undefined;
  if (src === 'bool' && kind === 'bool') return undefined;
  if (src === 'int64') {
    if (numberTarget) return undefined;
    if (kind === 'string') return `cannot convert int64 to ${goType}`;
  }
  if (src === 'float64' && numberTarget) {
    if (kind === 'float64' || Number.isInteger(v)) return undefined;
    return `cannot convert float64 to ${goType}`;
  }
  return `unrecognized type: ${kind}`;
}

/** structured-merge-diff's path element for a list item: by key, by value or by index. */
function itemElement(listType: JsonValue | undefined, keys: JsonValue | undefined, item: JsonValue, i: number): string {
  if (listType === 'map' && Array.isArray(keys) && isObject(item)) {
    const parts = keys
      .filter((k): k is string => typeof k === 'string' && item[k] !== undefined && item[k] !== null)
      .sort(compareStrings)
      .map((k) => `${k}=${smdKeyValue(item[k] as JsonValue)}`);
    if (parts.length > 0) return `[${parts.join(',')}]`;
  }
  if (listType === 'set') return `[=${smdKeyValue(item)}]`;
  return `[${i}]`;
}
