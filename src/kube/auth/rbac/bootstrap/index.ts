// kube-apiserver's rbac/bootstrap-roles post-start hook: the default ClusterRoles and
// ClusterRoleBindings exist once the server is up. Idempotent: objects already stored (a
// restart over kept storage, or an admin's edit) are left as they are.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { RBAC_GROUP } from '../resolver.ts';
import { bootstrapClusterRoleBindings, discoveryClusterRoles } from './discovery.ts';
import { userFacingClusterRoles } from './user-facing.ts';

export function bootstrapClusterRoles(): JsonObject[] {
  return [...userFacingClusterRoles(), ...discoveryClusterRoles()];
}

export { bootstrapClusterRoleBindings };

export async function ensureBootstrapPolicy(store: ObjectStore, catalog: ResourceCatalog): Promise<void> {
  const ctx = internalContext('kube-apiserver');
  const sets: Array<[string, JsonObject[]]> = [
    ['clusterroles', bootstrapClusterRoles()],
    ['clusterrolebindings', bootstrapClusterRoleBindings()],
  ];
  for (const [resource, objects] of sets) {
    const def = catalog.lookup(RBAC_GROUP, 'v1', resource)!;
    for (const obj of objects) {
      const name = String((obj.metadata as JsonObject).name);
      if (store.getStored(def, undefined, name)) continue;
      try {
        await store.create(def, undefined, obj, ctx);
      } catch (e) {
        if ((e as { code?: number }).code !== 409) throw e;
      }
    }
  }
}
