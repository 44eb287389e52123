// metav1.LabelSelector as built-in validation uses it: field errors for a malformed selector, and
// evaluation against a template's labels with LabelSelectorAsSelector's three outcomes (a nil
// selector selects nothing, an empty one selects everything, a malformed one is an error).
import type { FieldError } from '../errors.ts';
import type { JsonObject } from '../types.ts';
import { fieldForbidden, fieldInvalid, fieldRequired } from './fields.ts';
import { isObject, objects, str, strings } from './json.ts';
import { isQualifiedName, isValidLabelValue, validateLabels } from './names.ts';

export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  if (!isObject(sel)) return [];
  const errs: FieldError[] = [];
  const ml = isObject(sel.matchLabels) ? sel.matchLabels : undefined;
  const labels = ml
    ? Object.fromEntries(Object.entries(ml).map(([k, v]) => [k, typeof v === 'string' ? v : '']))
    : undefined;
  errs.push(...validateLabels(`${path}.matchLabels`, labels));
  objects(sel, 'matchExpressions').forEach((expr, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const op = str(expr, 'operator') ?? '';
    const values = strings(expr, 'values');
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0)
        errs.push(fieldRequired(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0)
        errs.push(fieldForbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldInvalid(`${p}.operator`, op, 'not a valid selector operator'));
    }
    const key = str(expr, 'key') ?? '';
    for (const m of isQualifiedName(key)) errs.push(fieldInvalid(`${p}.key`, key, m));
    values.forEach((v, j) => {
      for (const m of isValidLabelValue(v)) errs.push(fieldInvalid(`${p}.values[${j}]`, v, m));
    });
  });
  return errs;
}

export type CompiledSelector =
  | { kind: 'nothing' }
  | { kind: 'everything' }
  | { kind: 'error' }
  | { kind: 'match'; matches: (labels: Record<string, string>) => boolean };

/** LabelSelectorAsSelector. */
export function compileSelector(sel: unknown): CompiledSelector {
  if (sel === undefined || sel === null) return { kind: 'nothing' };
  if (!isObject(sel)) return { kind: 'error' };
  const tests: ((labels: Record<string, string>) => boolean)[] = [];
  const ml = isObject(sel.matchLabels) ? sel.matchLabels : {};
  for (const [k, v] of Object.entries(ml)) {
    if (typeof v !== 'string' || isQualifiedName(k).length > 0 || isValidLabelValue(v).length > 0)
      return { kind: 'error' };
    tests.push((l) => l[k] === v);
  }
  for (const expr of objects(sel, 'matchExpressions') as JsonObject[]) {
    const key = str(expr, 'key') ?? '';
    const values = strings(expr, 'values');
    if (isQualifiedName(key).length > 0 || values.some((v) => isValidLabelValue(v).length > 0))
      return { kind: 'error' };
    switch (expr.operator) {
      case 'In':
        if (values.length === 0) return { kind: 'error' };
        tests.push((l) => key in l && values.includes(l[key]));
        break;
      case 'NotIn':
        if (values.length === 0) return { kind: 'error' };
        tests.push((l) => !(key in l) || !values.includes(l[key]));
        break;
      case 'Exists':
        if (values.length > 0) return { kind: 'error' };
        tests.push((l) => key in l);
        break;
      case 'DoesNotExist':
        if (values.length > 0) return { kind: 'error' };
        tests.push((l) => !(key in l));
        break;
      default:
        return { kind: 'error' };
    }
  }
  if (tests.length === 0) return { kind: 'everything' };
  return { kind: 'match', matches: (labels) => tests.every((t) => t(labels)) };
}

/** Whether the selector has neither matchLabels nor matchExpressions. */
export function isEmptySelector(sel: JsonObject): boolean {
  const ml = isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0;
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0;
  return ml + me === 0;
}
