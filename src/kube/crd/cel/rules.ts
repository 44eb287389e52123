// x-kubernetes-validations, evaluated with @bufbuild/cel as kube-apiserver 1.33 does
// (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go): each rule runs with `self`
// bound to the value at its schema node and, for transition rules, `oldSelf` to the stored value
// (skipped when there is none); a failed rule is `<path>: Invalid value: "<schema type>":
// <message>` moved by fieldPath, its kind chosen by reason, its text by messageExpression,
// message, or `failed rule: <rule>`. Programs are compiled once per schema node, so once per CRD
// version; a rule that does not compile was refused when the CRD was written (cel/compile-check).
import { isCelError } from '@bufbuild/cel';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { fieldSchema } from '../schema/structural.ts';
import type { Structural } from '../schema/structural.ts';
import { CelCompileError, compileCel } from './program.ts';
import type { CelProgram } from './program.ts';
import { toCel } from './values.ts';

interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

interface CompiledRule extends Rule {
  program?: CelProgram;
  messageProgram?: CelProgram;
  /** Why the rule did not compile (only for a CRD stored before the check existed). */
  compileError?: string;
}

export function rulesOf(raw: JsonObject): Rule[] {
  const list = raw['x-kubernetes-validations'];
  if (!Array.isArray(list)) return [];
  return list.filter((r): r is JsonObject & Rule => typeof (r as JsonObject)?.rule === 'string');
}

function tryCompile(source: string): CelProgram | string {
  try {
    return compileCel(source);
  } catch (err) {
    if (err instanceof CelCompileError) return err.message;
    throw err;
  }
}

const compiledRules = new WeakMap<Structural, CompiledRule[]>();

function compiled(s: Structural): CompiledRule[] {
  let list = compiledRules.get(s);
  if (!list) {
    list = rulesOf(s.raw).map((r) => {
      const out: CompiledRule = { ...r };
      if (!r.rule.trim()) return out;
      const p = tryCompile(r.rule);
      if (typeof p === 'string') out.compileError = `compilation failed: ${p}`;
      else out.program = p;
      if (r.messageExpression) {
        const m = tryCompile(r.messageExpression);
        if (typeof m !== 'string') out.messageProgram = m;
      }
      return out;
    });
    compiledRules.set(s, list);
  }
  return list;
}

/** `.limit`, `.spec.replicas`, `['a.b']`: the path a rule's error is reported at. */
function relative(base: Path, fieldPath: string | undefined): Path {
  let p = base;
  const re = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['([^']*)'\]|\[(\d+)\]/gy;
  for (let m = re.exec(fieldPath ?? ''); m; m = re.exec(fieldPath ?? '')) {
    p = m[1] !== undefined ? child(p, m[1]) : m[2] !== undefined ? key(p, m[2]) : index(p, Number(m[3]));
  }
  return p;
}

/** kube's ruleErrorString: the message, else the rule. */
const ruleText = (r: Rule) => r.message?.trim() || r.rule.trim();

/** The evaluated messageExpression, or undefined where kube falls back to the message. */
function evaluatedMessage(r: CompiledRule, bindings: { self: unknown; oldSelf?: unknown }): string | undefined {
  const v = r.messageProgram?.run(bindings);
  if (typeof v !== 'string') return undefined;
  const text = v.trim();
  return text && !/\n/.test(text) && text.length <= 5 * 1024 ? text : undefined;
}

function failure(s: Structural, r: CompiledRule, at: Path, bindings: { self: unknown; oldSelf?: unknown }): FieldError {
  const path = relative(at, r.fieldPath);
  const detail = evaluatedMessage(r, bindings) ?? (r.message?.trim() || `failed rule: ${ruleText(r)}`);
  if (r.reason === 'FieldValueRequired') return fieldRequired(path, detail);
  if (r.reason === 'FieldValueForbidden') return fieldForbidden(path, detail);
  if (r.reason === 'FieldValueDuplicate') return fieldDuplicate(path, s.type);
  return fieldInvalid(path, s.type, detail);
}

/** The library's runtime error texts in cel-go's words, which kube's messages carry. */
function evaluationError(s: Structural, r: Rule, at: Path, message: string): FieldError {
  if (message.startsWith('found no matching overload') || message.startsWith('type mismatch')) {
    return fieldInvalid(
      at,
      s.type,
      `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r)}`,
    );
  }
  const text = message
    .replace(/^field not found: /, 'no such key: ')
    .replace(/^\w+ divide by zero$/, 'division by zero')
    .replace(/^\w+ modulus by zero$/, 'modulus by zero');
  return fieldInvalid(at, s.type, `${text} evaluating rule: ${ruleText(r)}`);
}

function check(s: Structural, at: Path, value: unknown, old: unknown, out: FieldError[]): void {
  const rules = compiled(s);
  if (rules.length === 0) return;
  const self = toCel(s, value);
  const oldSelf = old === undefined || old === null ? undefined : toCel(s, old);
  for (const r of rules) {
    if (r.compileError) {
      out.push(fieldInvalid(at, s.type, `rule compile error: ${r.compileError}`));
      continue;
    }
    if (!r.program) continue;
    if (r.program.usesOldSelf && oldSelf === undefined) continue;
    const bindings = oldSelf === undefined ? { self } : { self, oldSelf };
    const result = r.program.run(bindings);
    if (isCelError(result)) out.push(evaluationError(s, r, at, result.message));
    else if (result !== true) out.push(failure(s, r, at, bindings));
  }
}

function walk(s: Structural | undefined, at: Path, value: unknown, old: unknown, out: FieldError[]): void {
  if (!s || value === undefined || value === null) return;
  check(s, at, value, old, out);
  if (Array.isArray(value)) {
    // Only map-type lists correlate items with their old values; kube's transition rules on
    // items of other lists never run on an update.
    if (s.items) value.forEach((v, i) => walk(s.items, index(at, i), v, oldItem(s, v, old), out));
    return;
  }
  if (typeof value !== 'object') return;
  const o = value as JsonObject;
  const prev =
    s.xMapType !== 'atomic' && old !== null && typeof old === 'object' && !Array.isArray(old)
      ? (old as JsonObject)
      : undefined;
  for (const [k, v] of Object.entries(o)) {
    const sub = fieldSchema(s, k);
    const path = s.properties?.has(k) ? child(at, k) : key(at, k);
    walk(sub, path, v, prev?.[k], out);
  }
}

function oldItem(s: Structural, item: unknown, old: unknown): unknown {
  const keys = s.xListMapKeys;
  if (s.xListType !== 'map' || !keys?.length || !Array.isArray(old)) return undefined;
  if (item === null || typeof item !== 'object') return undefined;
  const it = item as JsonObject;
  return old.find((o) => o !== null && typeof o === 'object' && keys.every((k) => (o as JsonObject)[k] === it[k]));
}

/** Errors of the x-kubernetes-validations rules of `s` and below, for `value` at `at`. */
export function validateRules(s: Structural | undefined, at: Path, value: unknown, old?: unknown): FieldError[] {
  const out: FieldError[] = [];
  walk(s, at, value, old, out);
  return out;
}
