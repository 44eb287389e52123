// One RBAC rule against one request, as kube's RuleAllows
// (kubernetes/kubernetes:plugin/pkg/auth/authorizer/rbac/rbac.go and
// pkg/apis/rbac/v1/evaluation_helpers.go).
import type { PolicyRule } from '../../../apimachinery/core/index.ts';
import type { Attributes } from '../types.ts';

export type { PolicyRule };

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/** `combined` is `res` or `res/sub`; `*` covers everything, `*\/sub` every resource's `sub`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource))
      return true;
  }
  return false;
}

/** A rule naming objects never matches a request without a name (a list, a create). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Exact path, `*`, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith(ALL) && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!a.resourceRequest) return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    verbMatches(rule, a.verb) &&
    apiGroupMatches(rule, a.apiGroup) &&
    resourceMatches(rule, combined, a.subresource) &&
    resourceNameMatches(rule, a.name)
  );
}
