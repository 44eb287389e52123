// One provider instance for the whole stack. The simulated cloud lives in this process: the adaptors,
// the PeerPod controller and the demo must see the same VMs, so they share one instance rather than
// each building its own from peer-pods-cm. For qemu the state directory would be enough, and sharing
// costs nothing.
import { CLUSTER_UID_TAG, createProvider } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import type { Logger } from '../../runtime/index.ts';

/** A view of `p` whose close() does nothing: borrowers (the controller's pool) must not close the shared one. */
export function borrowed(p: CloudProvider): CloudProvider {
  return {
    name: p.name,
    createInstance: (req) => p.createInstance(req),
    deleteInstance: (id) => p.deleteInstance(id),
    listInstances: (tags) => p.listInstances(tags),
    verifyConfig: () => p.verifyConfig(),
  };
}

export async function buildSharedProvider(
  name: string,
  config: Record<string, string>,
  logger: Logger,
): Promise<CloudProvider> {
  const provider = await createProvider(name, config, { logger });
  await provider.verifyConfig();
  return provider;
}

/**
 * VMs a previous run left in the same state directory (it was killed before it could clean up):
 * the cluster they were tagged for is gone with its in-memory state, so nothing else will sweep them.
 */
export async function reapPreviousRuns(provider: CloudProvider, clusterUid: string, log: Logger): Promise<number> {
  let reaped = 0;
  for (const vm of await provider.listInstances({})) {
    if (vm.tags[CLUSTER_UID_TAG] === clusterUid) continue;
    await provider.deleteInstance(vm.id);
    log.warn({ instanceID: vm.id, name: vm.name }, 'deleted a VM left by an earlier run');
    reaped++;
  }
  return reaped;
}
