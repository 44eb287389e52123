// Running a component under the identity `peerpods manifests` generates for it: its ServiceAccount,
// roles and bindings read from config/rbac/ (the files users apply), and a client that acts as that
// ServiceAccount by impersonation (kubeconfig `as:`), so the embedded cluster's RBAC decides each
// of its requests as it would on a real cluster.
import { readFileSync, readdirSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { ClusterRoleBindings, ClusterRoles, RoleBindings, Roles, ServiceAccounts } from '../../src/runtime/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../src/runtime/index.ts';

const KINDS: Array<[string, ResourceType]> = [
  ['serviceaccount', ServiceAccounts],
  ['clusterrole', ClusterRoles],
  ['clusterrolebinding', ClusterRoleBindings],
  ['role', Roles],
  ['rolebinding', RoleBindings],
];

/**
 * Creates `component`'s generated ServiceAccount and RBAC (`kind_name.yaml`, and
 * `kind_namespace_name.yaml` for Roles in other namespaces; the namespaces must exist). Returns
 * the ServiceAccount's user name.
 */
export async function installGeneratedRbac(client: KubeClient, component: string): Promise<string> {
  const dir = new URL('../../config/rbac/', import.meta.url);
  const files = readdirSync(dir);
  let user = '';
  for (const [kind, type] of KINDS) {
    const ours = new RegExp(`^${kind}_([a-z0-9-]+_)?${component}\\.yaml$`);
    for (const file of files.filter((f) => ours.test(f))) {
      const obj = parse(readFileSync(new URL(file, dir), 'utf8')) as KubeObject;
      if (kind === 'serviceaccount') user = `system:serviceaccount:${obj.metadata.namespace}:${component}`;
      await client.create(type, obj);
    }
  }
  if (!user) throw new Error(`config/rbac/ has no ServiceAccount ${component}`);
  return user;
}

/** The same kubeconfig, impersonating `user`. */
export function kubeconfigAs(kubeconfig: string, user: string): string {
  const kc = parse(kubeconfig) as { users: Array<{ user: Record<string, unknown> }> };
  for (const u of kc.users) u.user.as = user;
  return stringify(kc);
}
