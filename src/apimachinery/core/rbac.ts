// rbac.authorization.k8s.io/v1 PolicyRule: the shape operators declare their rights in and the
// API server's authorizer evaluates. Resource rules name apiGroups and resources; non-resource
// rules name nonResourceURLs.
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
