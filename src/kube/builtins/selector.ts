// metav1.LabelSelector as built-in kinds use it: field errors for a malformed selector,
// evaluation against a template's labels with LabelSelectorAsSelector's three outcomes (a nil
// selector selects nothing, an empty one selects everything, a malformed one is an error), and
// its selector-syntax string (printed by Tables and the scale subresource).
import { StatusError } from '../../apimachinery/errors/index.ts';
import { isObject } from '../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import { labelSelectorFromObject, type LabelMatcher, type LabelSelector } from '../../apimachinery/selectors/label.ts';
import type { FieldError } from '../../apimachinery/validation/field-errors.ts';
import { validateLabelSelector as validateTypedSelector } from '../../apimachinery/validation/label-selector.ts';
import { objects, str, strings } from './json.ts';

/**
 * The typed metav1.LabelSelector in an untyped one, as decoding would leave it for validation:
 * non-object expressions are skipped, mistyped strings read as "", non-string values are dropped.
 */
function typedSelector(sel: JsonObject): LabelSelector {
  const ml = isObject(sel.matchLabels) ? sel.matchLabels : undefined;
  return {
    matchLabels: ml
      ? Object.fromEntries(Object.entries(ml).map(([k, v]) => [k, typeof v === 'string' ? v : '']))
      : undefined,
    matchExpressions: objects(sel, 'matchExpressions').map((e) => ({
      key: str(e, 'key') ?? '',
      operator: str(e, 'operator') ?? '',
      values: strings(e, 'values'),
    })),
  };
}

export function validateLabelSelectorJson(sel: unknown, path: string): FieldError[] {
  return isObject(sel) ? validateTypedSelector(typedSelector(sel), path) : [];
}

export type CompiledSelector =
  | { kind: 'nothing' }
  | { kind: 'everything' }
  | { kind: 'error' }
  | { kind: 'match'; matches: (labels: Record<string, string>) => boolean };

/** LabelSelectorAsSelector, with a malformed selector as an outcome instead of a 400. */
export function compileSelector(sel: unknown): CompiledSelector {
  if (sel === undefined || sel === null) return { kind: 'nothing' };
  if (!isObject(sel)) return { kind: 'error' };
  const ml = isObject(sel.matchLabels) ? sel.matchLabels : {};
  if (Object.values(ml).some((v) => typeof v !== 'string')) return { kind: 'error' };
  let matcher: LabelMatcher;
  try {
    matcher = labelSelectorFromObject(typedSelector(sel));
  } catch (e) {
    if (e instanceof StatusError) return { kind: 'error' };
    throw e;
  }
  if (matcher.empty) return { kind: 'everything' };
  return { kind: 'match', matches: (labels) => matcher.matches(labels) };
}

/** Whether the selector has neither matchLabels nor matchExpressions. */
export function isEmptySelector(sel: JsonObject): boolean {
  const ml = isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0;
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0;
  return ml + me === 0;
}

/**
 * metav1.LabelSelectorAsSelector(sel).String(): requirements sorted by key, set values sorted.
 * Returns undefined for a selector kube cannot convert (unknown operator).
 */
export function selectorString(v: JsonValue | undefined): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return '';
  try {
    return labelSelectorFromObject(v as unknown as LabelSelector).toString();
  } catch {
    return undefined;
  }
}
