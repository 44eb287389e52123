// rbac.authorization.k8s.io/v1 PolicyRule: what an operator declares it may do. The operators
// generate their Roles and ClusterRoles from rule sets of this shape.
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
