// The node pods' service account, `<id>` in namespace `<id>`; the cluster role bindings grant it
// what the endpoint updater and the shutdown-deferrer need. Created once. Not deleted: it goes with
// the namespace, which is deleted only after the last pod (so a draining pod keeps its identity).
import { ServiceAccounts, ignoreAlreadyExists, isNotFound } from '../../../runtime/index.ts';
import type { HandlerContext, KubeObject, ResourceHandler } from '../../../runtime/index.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterId, clusterNamespace, managedLabels } from '../../key.ts';

export function desiredServiceAccount(c: KVMConfig): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: clusterId(c), namespace: clusterNamespace(c), labels: managedLabels(c) },
  };
}

export function serviceAccountHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'serviceaccount',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const desired = desiredServiceAccount(c);
      try {
        await deps.client.get(ServiceAccounts, clusterId(c), clusterNamespace(c), { signal: ctx.signal });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      const created = await ignoreAlreadyExists(deps.client.create(ServiceAccounts, desired, { signal: ctx.signal }));
      if (created) ctx.log.info({ serviceAccount: clusterId(c) }, 'service account created');
    },
    async ensureDeleted(): Promise<void> {},
  };
}
