// How escalation errors list the rights a user lacks: broken-down rules that differ only by verb
// are merged back (kubernetes/kubernetes:pkg/registry/rbac/validation/policy_compact.go), then
// printed as rbac.CompactString does (pkg/apis/rbac/v1/evaluation_helpers.go), one per line in
// sorted order.
import { goQuote } from '../../../apimachinery/strings/index.ts';
import type { PolicyRule } from './rules.ts';

/** Go's `%q` of a []string: `["a" "b"]`. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** A rule of one group and one resource, at most one name, and nothing else. */
function simpleKey(rule: PolicyRule): string | undefined {
  const names = rule.resourceNames ?? [];
  if (names.length > 1 || rule.nonResourceURLs !== undefined) return undefined;
  if (rule.apiGroups?.length !== 1 || rule.resources?.length !== 1) return undefined;
  return JSON.stringify([rule.apiGroups[0], rule.resources[0], names.length > 0, names[0] ?? '']);
}

export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const key = simpleKey(rule);
    const existing = key === undefined ? undefined : simple.get(key);
    if (key === undefined) compacted.push(rule);
    else if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, { ...rule, verbs: [...rule.verbs] });
  }
  return [...compacted, ...simple.values()];
}

export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const field = (name: string, values: readonly string[] | undefined): void => {
    if (values?.length) parts.push(`${name}:${goQuotedList(values)}`);
  };
  field('APIGroups', rule.apiGroups);
  field('Resources', rule.resources);
  field('NonResourceURLs', rule.nonResourceURLs);
  field('ResourceNames', rule.resourceNames);
  field('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}

/** The missing rights as the escalation message lists them: compacted, deduplicated, sorted. */
export function describeMissingRules(rules: readonly PolicyRule[]): string {
  return [...new Set(compactRules(rules).map(compactString))].sort().join('\n');
}
