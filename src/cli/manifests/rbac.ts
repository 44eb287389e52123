// One component's identity in config/rbac/: its ServiceAccount, a ClusterRole and binding for the
// rules that span namespaces, a Role and binding in the operator's namespace for the rest (and in
// any other namespace it works in). Every
// object is named after the component, so `kubectl auth can-i --list
// --as=system:serviceaccount:<ns>:<component>` shows exactly what this file generated for it.
import type { ComponentRules, KubeObject, PolicyRule } from '../../runtime/index.ts';

const RBAC_API = 'rbac.authorization.k8s.io/v1';

export interface Component {
  /** The ServiceAccount's name, and that of its roles and bindings. */
  name: string;
  rules: ComponentRules;
  /** False for a component that never calls the API server: its pods get no token. */
  needsToken?: boolean;
}

export function componentRbac(c: Component, ns: string, labels: Record<string, string>): KubeObject[] {
  const meta = (namespace?: string) => ({
    name: c.name,
    ...(namespace ? { namespace } : {}),
    labels: { ...labels },
  });
  const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', roleKind: 'ClusterRole' | 'Role', at = ns) => ({
    apiVersion: RBAC_API,
    kind,
    metadata: meta(kind === 'RoleBinding' ? at : undefined),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: c.name },
    subjects: [{ kind: 'ServiceAccount', name: c.name, namespace: ns }],
  });
  const out: KubeObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta(ns),
      ...(c.needsToken === false ? { automountServiceAccountToken: false } : {}),
    },
  ];
  if (c.rules.cluster.length > 0) {
    out.push({ apiVersion: RBAC_API, kind: 'ClusterRole', metadata: meta(), rules: c.rules.cluster });
    out.push(binding('ClusterRoleBinding', 'ClusterRole'));
  }
  const roles = new Map([[ns, [...c.rules.namespaced]]]);
  for (const [at, rules] of Object.entries(c.rules.otherNamespaces ?? {})) {
    roles.set(at, [...(roles.get(at) ?? []), ...rules]);
  }
  for (const [at, rules] of roles) {
    if (rules.length === 0) continue;
    out.push({ apiVersion: RBAC_API, kind: 'Role', metadata: meta(at), rules });
    out.push(binding('RoleBinding', 'Role', at));
  }
  return out;
}

/**
 * What one further provider adds to a component's rights: a Role `<component>-<provider>` in the
 * operator's namespace, bound to the component's ServiceAccount (none when there is nothing to add).
 * Apart from the component's own Role, so adding or removing a provider never rewrites it.
 */
export function providerRbac(
  component: string,
  provider: string,
  rules: PolicyRule[],
  ns: string,
  labels: Record<string, string>,
): KubeObject[] {
  if (rules.length === 0) return [];
  const metadata = { name: `${component}-${provider}`, namespace: ns, labels: { ...labels } };
  return [
    { apiVersion: RBAC_API, kind: 'Role', metadata, rules },
    {
      apiVersion: RBAC_API,
      kind: 'RoleBinding',
      metadata: { ...metadata, labels: { ...labels } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: metadata.name },
      subjects: [{ kind: 'ServiceAccount', name: component, namespace: ns }],
    },
  ];
}
