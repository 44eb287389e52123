// kube's RBAC authorizer (kubernetes/kubernetes:plugin/pkg/auth/authorizer/rbac/rbac.go): allows
// when some rule bound to the user covers the request; never denies outright, so a "no" carries
// only the errors met while resolving the user's bindings.
import type { Attributes, Authorizer, Decision } from '../types.ts';
import type { RuleResolver } from './resolver.ts';
import { ruleAllows } from './rules.ts';

/** apimachinery's utilerrors aggregate text: one message as is, several (deduplicated) in brackets. */
export function aggregateErrors(errors: string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length <= 1 ? (distinct[0] ?? '') : `[${distinct.join(', ')}]`;
}

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly resolver: RuleResolver) {}

  authorize(a: Attributes): Decision {
    let reason = '';
    const errors = this.resolver.visitRules(a.user, a.namespace, (source, rule) => {
      if (!ruleAllows(a, rule)) return true;
      reason = `RBAC: allowed by ${source}`;
      return false;
    });
    if (reason) return { allowed: true, reason };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }
}
