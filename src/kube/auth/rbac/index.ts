// RBAC for the embedded API server: the rule resolver (roles and bindings in memory), the
// authorizer over it, and the bootstrap policy kube-apiserver creates at start.
export {
  RuleResolver,
  RBAC_GROUP,
  rulesOf,
  type Binding,
  type RoleRef,
  type RuleVisitor,
  type Subject,
} from './resolver.ts';
export { RbacAuthorizer, aggregateErrors } from './authorizer.ts';
export { ruleAllows, type PolicyRule } from './rules.ts';
export { ensureBootstrapPolicy, bootstrapClusterRoles, bootstrapClusterRoleBindings } from './bootstrap/index.ts';
