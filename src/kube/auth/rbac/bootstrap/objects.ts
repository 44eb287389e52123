// Builders for the bootstrap policy objects: kube's rbacv1helpers.NewRule and NewClusterBinding,
// with the label and annotation every bootstrap object carries
// (kubernetes/kubernetes:plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go).
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import type { PolicyRule } from '../rules.ts';
import { RBAC_GROUP } from '../resolver.ts';

export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

/** A resource rule; lists are given as upstream stores them (sorted). */
export function rule(apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): PolicyRule {
  return resourceNames ? { apiGroups, resources, resourceNames, verbs } : { apiGroups, resources, verbs };
}

export function urlRule(nonResourceURLs: string[], verbs: string[]): PolicyRule {
  return { nonResourceURLs, verbs };
}

function bootstrapMeta(name: string, labels: Record<string, string> = {}): JsonObject {
  return {
    name,
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

export interface ClusterRoleSpec {
  name: string;
  labels?: Record<string, string>;
  rules?: PolicyRule[];
  /** matchLabels of each clusterRoleSelector. */
  aggregateFrom?: Array<Record<string, string>>;
}

export function clusterRole(spec: ClusterRoleSpec): JsonObject {
  const obj: JsonObject = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: bootstrapMeta(spec.name, spec.labels),
  };
  if (spec.aggregateFrom)
    obj.aggregationRule = { clusterRoleSelectors: spec.aggregateFrom.map((m) => ({ matchLabels: m })) };
  if (spec.rules) obj.rules = spec.rules as unknown as JsonObject[];
  return obj;
}

/** A ClusterRoleBinding named after its ClusterRole, to groups. */
export function clusterRoleBindingToGroups(role: string, groups: string[]): JsonObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMeta(role),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: groups.map((name) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name })),
  };
}
