// SelfSubjectRulesReview: every rule that applies to the caller in one namespace (the
// ClusterRoleBindings' and that namespace's RoleBindings'), as `kubectl auth can-i --list` prints
// them (kubernetes/kubernetes:pkg/registry/authorization/selfsubjectrulesreview/rest.go; the rule
// split of plugin/pkg/auth/authorizer/rbac/rbac.go's RulesFor).
import { badRequest } from '../../../apimachinery/errors/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { CreateOnly } from '../../server/extensions.ts';
import { aggregateErrors } from '../rbac/authorizer.ts';
import type { RuleResolver } from '../rbac/resolver.ts';
import type { PolicyRule } from '../rbac/rules.ts';
import { AUTHORIZATION_GROUP } from './subject-access-review.ts';

/** A rule with resources is a resource rule, one with URLs a non-resource rule (a rule may be both). */
function splitRules(rules: PolicyRule[]): { resourceRules: JsonObject[]; nonResourceRules: JsonObject[] } {
  const resourceRules: JsonObject[] = [];
  const nonResourceRules: JsonObject[] = [];
  for (const rule of rules) {
    if (rule.resources?.length) {
      const r: JsonObject = { verbs: rule.verbs };
      if (rule.apiGroups?.length) r.apiGroups = rule.apiGroups;
      r.resources = rule.resources;
      if (rule.resourceNames?.length) r.resourceNames = rule.resourceNames;
      resourceRules.push(r);
    }
    if (rule.nonResourceURLs?.length)
      nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
  }
  return { resourceRules, nonResourceRules };
}

export function selfSubjectRulesReviews(resolver: Pick<RuleResolver, 'rulesFor'>): CreateOnly {
  return {
    async create({ body }, ctx) {
      const spec = isObject(body.spec) ? body.spec : {};
      const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
      if (!namespace) throw badRequest('no namespace on request');
      const { rules, errors } = resolver.rulesFor(ctx.userInfo, namespace);
      // RBAC enumerates every rule it knows, so the list is complete even when a binding's role
      // is missing; the missing role is reported as the evaluation error.
      const status: JsonObject = { ...splitRules(rules), incomplete: false };
      if (errors.length > 0) status.evaluationError = aggregateErrors(errors);
      return {
        code: 201,
        object: {
          kind: 'SelfSubjectRulesReview',
          apiVersion: `${AUTHORIZATION_GROUP}/v1`,
          metadata: { creationTimestamp: null },
          // kube answers with a new object: the request's spec is not echoed.
          spec: {},
          status,
        },
      };
    },
  };
}
