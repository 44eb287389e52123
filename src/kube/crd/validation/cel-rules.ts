// kube's CRD validation compiles every x-kubernetes-validations rule and messageExpression and
// refuses the CRD when one does not compile (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go, pkg/apiserver/schema/cel/compilation.go):
// `...x-kubernetes-validations[i].rule: Invalid value: <the rule>: compilation failed: <issues>`.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { fieldInvalid } from '../../../apimachinery/validation/field-errors.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { asObject } from '../json.ts';
import { CelCompileError, compileCel } from '../cel/program.ts';
import { rulesOf } from '../cel/rules.ts';
import { ruleStruct } from './internal-json.ts';

function compileError(source: string): string | undefined {
  try {
    compileCel(source);
    return undefined;
  } catch (err) {
    if (err instanceof CelCompileError) return err.message;
    throw err;
  }
}

function nodeErrors(s: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  rulesOf(s).forEach((r, i) => {
    const at = index(child(path, 'x-kubernetes-validations'), i);
    if (!r.rule.trim()) return;
    const ruleErr = compileError(r.rule);
    if (ruleErr) {
      errs.push(fieldInvalid(child(at, 'rule'), ruleStruct(r), `compilation failed: ${ruleErr}`));
      return;
    }
    const messageErr = r.messageExpression ? compileError(r.messageExpression) : undefined;
    if (messageErr) {
      errs.push(
        fieldInvalid(
          child(at, 'messageExpression'),
          ruleStruct(r),
          `messageExpression compilation failed: ${messageErr}`,
        ),
      );
    }
  });
  return errs;
}

/** The compile errors of every rule in a (structural) schema, node by node as kube walks it. */
export function celCompileErrors(s: JsonObject, path: Path): FieldError[] {
  const errs = nodeErrors(s, path);
  for (const [name, prop] of Object.entries(asObject(s.properties) ?? {})) {
    if (isObject(prop)) errs.push(...celCompileErrors(prop, key(child(path, 'properties'), name)));
  }
  if (isObject(s.items)) errs.push(...celCompileErrors(s.items, child(path, 'items')));
  if (isObject(s.additionalProperties))
    errs.push(...celCompileErrors(s.additionalProperties, child(path, 'additionalProperties')));
  return errs;
}
