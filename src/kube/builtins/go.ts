// `%#v` renderings of the Go values kube-apiserver puts in validation messages (maps, selectors,
// string slices). Messages quote these verbatim, so key order and nil/empty spelling follow fmt.
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { goQuote, goStringSlice } from '../../apimachinery/strings/goquote.ts';
import { GoValue } from '../../apimachinery/validation/field-errors.ts';
import { objects, str, strings } from './json.ts';
import { isObject } from '../../apimachinery/json/index.ts';

/** `map[string]string{"a":"b"}`, or `map[string]string(nil)` for an absent map. */
export function goStringMap(m: Record<string, string> | undefined): string {
  if (m === undefined) return 'map[string]string(nil)';
  const body = Object.keys(m)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(m[k])}`)
    .join(', ');
  return `map[string]string{${body}}`;
}

export function goStringMapValue(m: Record<string, string> | undefined): GoValue {
  return new GoValue(goStringMap(m));
}

export function goStringSliceValue(values: readonly string[] | undefined): GoValue {
  return new GoValue(values === undefined ? '[]string(nil)' : goStringSlice(values));
}

function selectorRequirement(r: JsonObject): string {
  const values = Array.isArray(r.values) ? goStringSlice(strings(r, 'values')) : '[]string(nil)';
  return `v1.LabelSelectorRequirement{Key:${goQuote(str(r, 'key') ?? '')}, Operator:${goQuote(str(r, 'operator') ?? '')}, Values:${values}}`;
}

/** A *metav1.LabelSelector as validation prints it (dereferenced, `%#v`). */
export function goLabelSelector(sel: unknown): GoValue {
  if (!isObject(sel)) return new GoValue('null');
  const ml = isObject(sel.matchLabels)
    ? goStringMap(
        Object.fromEntries(Object.entries(sel.matchLabels).map(([k, v]) => [k, typeof v === 'string' ? v : ''])),
      )
    : 'map[string]string(nil)';
  const me = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${objects(sel, 'matchExpressions').map(selectorRequirement).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoValue(`v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${me}}`);
}

/** An IntOrString prints through its String() method: the number, or the string unquoted. */
export function goIntOrString(v: unknown): GoValue {
  return new GoValue(typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '0');
}
