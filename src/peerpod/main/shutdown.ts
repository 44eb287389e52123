// Stopping without leaving a VM behind. QEMU VMs are detached processes that outlive us (as cloud
// VMs outlive their API client), so stopping must delete them. We take the normal path first: delete
// every peer pod through the API, so each adaptor deletes its VM and releases the PeerPod finalizer
// exactly as on any pod deletion. Pods still there halfway through the deadline (their adaptor is
// stopped) are force-deleted, which hands their VMs to the PeerPod controller. Whatever VM still
// carries this cluster's tag at the deadline is deleted through the provider directly. A warm pool's
// spares are not waited for: their adaptors keep them (and refill them) as long as they run, so they
// go once nothing runs (deleteSpares).
import { Pods } from '../../runtime/index.ts';
import type { KubeClient, KubeObject, Logger } from '../../runtime/index.ts';
import { POOL_LABEL, PeerPods } from '../api/index.ts';
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import type { CloudProvider, Instance } from '../providers/index.ts';
import { POOL_TAG } from '../adaptor/pool/records.ts';

export interface DrainReport {
  podsDeleted: number;
  forceDeleted: number;
  /** VMs the normal path did not remove, deleted through the provider. */
  vmsDeletedDirectly: number;
  /** Warm pool spares' VMs, deleted through the provider once their adaptors stopped (deleteSpares). */
  sparesDeleted: number;
  /** VMs still listed by the provider at the end, spares aside until deleteSpares counts again (should be 0). */
  vmsLeft: number;
  ms: number;
}

function isPeerPod(p: KubeObject, runtimeClasses: readonly string[]): boolean {
  return runtimeClasses.includes((p.spec as { runtimeClassName?: string } | undefined)?.runtimeClassName ?? '');
}

/** The pods of `runtimeClass` (or of any of several, one per provider). */
export async function peerPodsInCluster(
  client: KubeClient,
  runtimeClass: string | readonly string[],
): Promise<KubeObject[]> {
  const classes = typeof runtimeClass === 'string' ? [runtimeClass] : runtimeClass;
  return (await client.listAll<KubeObject>(Pods)).items.filter((p) => isPeerPod(p, classes));
}

export async function drainPeerPods(o: {
  client: KubeClient;
  /** Every provider of the stack, and the RuntimeClass of each one's pods. */
  providers: CloudProvider[];
  clusterUid: string;
  runtimeClasses: string[];
  timeoutMs: number;
  log: Logger;
}): Promise<DrainReport> {
  const started = Date.now();
  const report: DrainReport = {
    podsDeleted: 0,
    forceDeleted: 0,
    vmsDeletedDirectly: 0,
    sparesDeleted: 0,
    vmsLeft: 0,
    ms: 0,
  };
  const del = async (p: KubeObject, force: boolean): Promise<void> => {
    try {
      await o.client.delete(
        Pods,
        p.metadata.name as string,
        p.metadata.namespace,
        force ? { gracePeriodSeconds: 0 } : {},
      );
    } catch (err) {
      if ((err as { code?: number }).code !== 404)
        o.log.warn({ err, pod: p.metadata.name }, 'deleting a peer pod failed');
    }
  };
  const pods = await peerPodsInCluster(o.client, o.runtimeClasses).catch(() => []);
  await Promise.all(pods.map((p) => del(p, false)));
  report.podsDeleted = pods.length;

  const tags = { [CLUSTER_UID_TAG]: o.clusterUid };
  const settled = async (): Promise<boolean> =>
    (await peerPodsInCluster(o.client, o.runtimeClasses)).length === 0 &&
    (await o.client.list(PeerPods, { labelSelector: `!${POOL_LABEL}`, limit: 1 })).items.length === 0 &&
    (await Promise.all(o.providers.map((p) => p.listInstances(tags)))).every((vms) => vms.every(madeForPool));
  let forced = false;
  while (Date.now() - started < o.timeoutMs) {
    try {
      if (await settled()) break;
      if (!forced && Date.now() - started > o.timeoutMs / 2) {
        forced = true;
        const stuck = await peerPodsInCluster(o.client, o.runtimeClasses);
        report.forceDeleted = stuck.length;
        await Promise.all(stuck.map((p) => del(p, true)));
      }
    } catch (err) {
      // The API may already be going away; the provider check below still runs.
      o.log.debug({ err }, 'drain check failed');
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await sweep({ ...o, report, spares: false });
  report.ms = Date.now() - started;
  return report;
}

/**
 * The VMs still tagged with the cluster's UID, deleted through the provider, and what is left counted
 * (`vmsLeft`, of every cluster): spares aside while their adaptors may still run, or with them once
 * nothing runs.
 */
async function sweep(o: {
  report: DrainReport;
  providers: CloudProvider[];
  clusterUid: string;
  log: Logger;
  spares: boolean;
}): Promise<void> {
  o.report.vmsLeft = 0;
  for (const provider of o.providers) {
    for (const vm of await provider.listInstances({ [CLUSTER_UID_TAG]: o.clusterUid })) {
      const spare = madeForPool(vm);
      if (spare && !o.spares) continue;
      if (!spare)
        o.log.warn(
          { instanceID: vm.id, name: vm.name, provider: provider.name },
          'VM still there at shutdown; deleting it through the provider',
        );
      await provider.deleteInstance(vm.id);
      if (spare) o.report.sparesDeleted++;
      else o.report.vmsDeletedDirectly++;
    }
    o.report.vmsLeft += (await provider.listInstances({})).filter((vm) => o.spares || !madeForPool(vm)).length;
  }
}

/**
 * A VM made as a warm pool's spare (its tag stays when a pod takes it; the pod's PeerPod then holds
 * the drain up like any other until the adaptor deletes it).
 */
function madeForPool(vm: Instance): boolean {
  return vm.tags[POOL_TAG] !== undefined;
}

/**
 * After drainPeerPods, once no adaptor runs (none refills its pool any more): the spares' VMs, deleted
 * through the provider; `vmsLeft` counts every VM again. Their records stay with their PeerPodConfig:
 * a run resumed from its store finds their VMs gone and makes new ones, as for any spare that died.
 */
export async function deleteSpares(o: {
  report: DrainReport;
  providers: CloudProvider[];
  clusterUid: string;
  log: Logger;
}): Promise<void> {
  const started = Date.now() - o.report.ms;
  await sweep({ ...o, spares: true });
  if (o.report.sparesDeleted > 0) o.log.info({ spares: o.report.sparesDeleted }, "deleted the warm pools' spare VMs");
  o.report.ms = Date.now() - started;
}
