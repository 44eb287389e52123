// Stopping a pod's VM: delete it through the provider, release `peer.pod/finalizer` (only that one,
// by a guarded JSON patch), then finish the pod's deletion. The garbage collector removes the
// PeerPod through its owner reference once the pod is gone.
import { Pods, hasFinalizer, isConflict, isNotFound, removeFinalizer, waitForCache } from '../../runtime/index.ts';
import type { KubeObject, ReconcileContext } from '../../runtime/index.ts';
import { PEERPOD_FINALIZER, PeerPods } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import type { AdaptorDeps } from './deps.ts';
import { podRef, podVmTags } from './deps.ts';
import { observePodStopped } from './lifecycle.ts';
import { ownerUidOf } from './peerpod-record.ts';

/**
 * Deletes the VMs the given PeerPods name with our provider, plus, when one of them never got its
 * instance ID (a crash between create and record), every VM tagged with the pod's UID. Returns the
 * PeerPods whose VMs are now gone; PeerPods of another provider are left to the PeerPod controller.
 * `keep` holds instance IDs that must survive (the live PeerPod's VM).
 */
export async function deleteVms(
  d: AdaptorDeps,
  podUid: string,
  owned: PeerPod[],
  eventTarget: KubeObject,
  ctx: ReconcileContext,
  keep: ReadonlySet<string> = new Set(),
): Promise<PeerPod[]> {
  const ours = d.providers.name();
  const mine = owned.filter((pp) => !pp.spec?.cloudProvider || pp.spec.cloudProvider === ours);
  if (mine.length === 0) return [];
  const needList = mine.some((pp) => !pp.spec?.instanceID);
  const ids = new Set(mine.map((pp) => pp.spec?.instanceID ?? '').filter((id) => id !== ''));
  await d.providers.use(async (cloud, name) => {
    if (needList) {
      for (const vm of await cloud.listInstances(await podVmTags(d, podUid, ctx.signal))) ids.add(vm.id);
    }
    for (const id of ids) {
      if (keep.has(id)) continue;
      let existed: boolean | void;
      try {
        existed = await cloud.deleteInstance(id);
      } catch (err) {
        d.metrics.operations.inc({ node: d.opts.nodeName, provider: name, op: 'delete', result: 'failed' });
        d.events.warning(eventTarget, 'VMDeleteFailed', `deleting ${name} VM ${id}: ${(err as Error).message}`);
        throw err;
      }
      d.metrics.operations.inc({ node: d.opts.nodeName, provider: name, op: 'delete', result: 'ok' });
      if (existed === false) {
        // Nothing was deleted: say so rather than report a VM that never existed (issue #16).
        d.events.normal(eventTarget, 'VMNotFound', `${name} VM ${id} does not exist: nothing to delete`);
        ctx.log.info({ provider: name, instanceID: id }, 'VM not found: nothing to delete');
        continue;
      }
      d.events.normal(eventTarget, 'VMDeleted', `deleted ${name} VM ${id}`);
      ctx.log.info({ provider: name, instanceID: id }, 'VM deleted');
    }
  });
  return mine;
}

export async function releaseFinalizers(d: AdaptorDeps, released: PeerPod[], ctx: ReconcileContext): Promise<void> {
  for (const pp of released) {
    if (hasFinalizer(pp, PEERPOD_FINALIZER)) {
      const written = await removeFinalizer(d.client, PeerPods, pp, PEERPOD_FINALIZER, { signal: ctx.signal });
      // The reconcile this write triggers must not see the finalizer again and repeat the delete.
      await waitForCache(d.peerPods.holding(written), written, { throwOnTimeout: false });
    }
  }
}

/** The pod has a deletionTimestamp: stop its VM, then finish the deletion (we are its kubelet). */
export async function stopPod(d: AdaptorDeps, pod: KubeObject, owned: PeerPod[], ctx: ReconcileContext): Promise<void> {
  // A PeerPod without the finalizer had its VM released already (by us before a restart, or by
  // upstream's adaptor); deleting again would only repeat provider calls and events.
  const held = owned.filter((pp) => hasFinalizer(pp, PEERPOD_FINALIZER));
  const released = await deleteVms(d, pod.metadata.uid as string, held, pod, ctx);
  await releaseFinalizers(d, released, ctx);
  observePodStopped(d, pod, released);
  try {
    await d.client.delete(Pods, pod.metadata.name as string, pod.metadata.namespace, {
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.metadata.uid as string },
      signal: ctx.signal,
    });
  } catch (err) {
    // Gone, or a new pod of the same name (the precondition failed): either way not ours to finish.
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
  ctx.log.info({ pod: podRef(pod) }, 'pod VM stopped; pod deletion completed');
}

/**
 * The pod is gone without us (force-deleted, or deleted while we were down and finished by someone
 * else): clean up what our PeerPods of that name still hold. A live GET confirms the pod is gone,
 * so a lagging cache can never cost a running pod its VM.
 */
export async function releaseLeftovers(
  d: AdaptorDeps,
  namespace: string,
  podName: string,
  leftovers: PeerPod[],
  ctx: ReconcileContext,
): Promise<void> {
  let live: KubeObject | undefined;
  try {
    live = await d.client.get(Pods, podName, namespace, { signal: ctx.signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const byOwner = new Map<string, PeerPod[]>();
  for (const pp of leftovers) {
    if (!hasFinalizer(pp, PEERPOD_FINALIZER)) continue;
    const uid = ownerUidOf(pp) ?? '';
    if (!uid || uid === live?.metadata.uid) continue;
    byOwner.set(uid, [...(byOwner.get(uid) ?? []), pp]);
  }
  for (const [uid, pps] of byOwner) {
    const released = await deleteVms(d, uid, pps, pps[0], ctx);
    await releaseFinalizers(d, released, ctx);
  }
}
