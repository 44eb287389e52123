// Whether one set of RBAC rules grants everything another does, as kube's escalation check asks
// it (kubernetes/component-helpers:auth/rbac/validation/policy_comparator.go). This compares rules
// with rules — `*` in the owner's rule covers anything, `*/sub` covers that subresource of every
// resource, a URL ending in `*` covers its prefix — unlike rules.ts, which matches one request.
import type { PolicyRule } from './rules.ts';

const ALL = '*';

/**
 * One rule per group × resource × verb × name (and URL × verb): the finest grain coverage is
 * judged at, and the form the missing rights are reported in.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names)
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => set.includes(w));
}

function resourcesCovered(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes(ALL) || hasAll(owner, wanted)) return true;
  return wanted.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && owner.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlCovers(ownerPath: string, path: string): boolean {
  if (ownerPath === path) return true;
  return ownerPath.endsWith(ALL) && path.startsWith(ownerPath.replace(/\*+$/, ''));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const namesCovered =
    subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return (
    (owner.verbs.includes(ALL) || hasAll(owner.verbs, sub.verbs)) &&
    ((owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups ?? [], sub.apiGroups ?? [])) &&
    resourcesCovered(owner.resources ?? [], sub.resources ?? []) &&
    namesCovered &&
    (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, p)))
  );
}

/** The broken-down rules of `servant` no rule of `owner` covers (empty: `owner` covers it all). */
export function uncoveredRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  return servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}
