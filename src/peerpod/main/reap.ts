// VMs an earlier run left behind. The CLI holds a provider handle on the same state as the pods.
import { existsSync } from 'node:fs';
import { CLUSTER_UID_TAG, createProvider } from '../providers/index.ts';
import type { CloudProvider } from '../providers/index.ts';
import type { KubeClient, Logger } from '../../runtime/index.ts';
import { PeerPods } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import { STACK_PROVIDERS, providerConfigFor, providerStateDir } from './settings.ts';
import type { StackProviderName } from './settings.ts';

/**
 * VMs in the same provider state that nothing in this cluster accounts for: tagged for another
 * cluster (a run whose store is gone, e.g. one that kept its objects in memory and was killed) and
 * named by no stored PeerPod. A run resumed from its store keeps its VMs: they carry this cluster's
 * tag and their PeerPods, and their adaptors adopt them; a VM of this cluster that no PeerPod
 * names is the PeerPod controller's orphan sweep's, after its grace period.
 */
export async function reapPreviousRuns(
  provider: CloudProvider,
  client: KubeClient,
  /** undefined: no sweep of this cluster looks at this provider, so its tag keeps nothing. */
  clusterUid: string | undefined,
  log: Logger,
): Promise<number> {
  const recorded = new Set<string>();
  for (const pp of (await client.listAll<PeerPod>(PeerPods)).items)
    if (pp.spec?.instanceID) recorded.add(pp.spec.instanceID);
  let reaped = 0;
  for (const vm of await provider.listInstances({})) {
    if ((clusterUid !== undefined && vm.tags[CLUSTER_UID_TAG] === clusterUid) || recorded.has(vm.id)) continue;
    await provider.deleteInstance(vm.id);
    log.warn({ instanceID: vm.id, name: vm.name }, 'deleted a VM left by an earlier run');
    reaped++;
  }
  return reaped;
}

/**
 * The VMs of the stack's other providers whose state is in the same directory (a run with
 * `--provider qemu` killed, then one with `--provider simulated`): no adaptor or sweep of this run
 * looks there, so every VM no stored PeerPod names is deleted. `current`: the provider(s) this run has.
 */
export async function reapOtherProviders(
  current: StackProviderName | readonly StackProviderName[],
  stateDir: string,
  client: KubeClient,
  log: Logger,
): Promise<number> {
  const running: readonly string[] = typeof current === 'string' ? [current] : current;
  let reaped = 0;
  for (const name of STACK_PROVIDERS) {
    if (running.includes(name) || !existsSync(providerStateDir(name, stateDir))) continue;
    const provider = await createProvider(name, providerConfigFor(name, stateDir), {
      logger: log.child({ component: 'provider', provider: name }),
    });
    try {
      reaped += await reapPreviousRuns(provider, client, undefined, log);
    } finally {
      await provider.close?.();
    }
  }
  return reaped;
}
