// One term of a label selector ("key in (a,b)", "!key", ...) with apimachinery's validation
// (labels.NewRequirement) and matching rules. Error text reproduces Go's field.ErrorList
// aggregate because that string becomes the 400 message clients show.
import { goQuote, goStringSlice } from '../strings/goquote.ts';
import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';

/** selection.Operator values, spelled as Go spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** As given; `toString()` sorts them without touching this list. */
  readonly values: readonly string[];
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64); undefined when Go would return an error. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Go's errors.Aggregate text: duplicates dropped, brackets only around several. */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/**
 * Field error text for a label key. `path` is Go's rendering of the field path, which is the
 * literal "<nil>" when the selector parser validates keys (it passes a nil path).
 */
export function labelKeyError(key: string, path: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? `${path}: Invalid value: ${goQuote(key)}: ${errs.join('; ')}` : undefined;
}

/**
 * labels.NewRequirement: the requirement, or the aggregate error message. `nilWhenEmpty`
 * reproduces how Go prints an empty values list that was never allocated (`[]string(nil)`).
 */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  nilWhenEmpty = false,
): { requirement: LabelRequirement } | { error: string } {
  const errs: string[] = [];
  const keyErr = labelKeyError(key, 'key');
  if (keyErr) errs.push(keyErr);
  const shown = nilWhenEmpty && values.length === 0 ? '[]string(nil)' : goStringSlice(values);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(`values: Invalid value: ${shown}: for 'in', 'notin' operators, values set can't be empty`);
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(`values: Invalid value: ${shown}: exact-match compatibility requires one single value`);
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(`values: Invalid value: ${shown}: values set must be empty for exists and does not exist`);
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(`values: Invalid value: ${shown}: for 'Gt', 'Lt' operators, exactly one value is required`);
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(
            `values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`,
          );
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${valueErrs.join('; ')}`);
  });
  if (errs.length) return { error: aggregateMessage(errs) };
  return { requirement: { key, operator, values: [...values] } };
}

export function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value as string);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

const OPERATOR_TEXT: Record<LabelOperator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  const shown = r.operator === 'in' || r.operator === 'notin' ? `(${values})` : values;
  return `${r.key}${OPERATOR_TEXT[r.operator]}${shown}`;
}
