// VMs an earlier run left behind. The CLI holds a provider handle on the same state as the pods.
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import type { Logger } from '../../runtime/index.ts';

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
