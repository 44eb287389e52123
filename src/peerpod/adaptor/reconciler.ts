// The adaptor's reconcile, keyed by pod: a pod of our runtime class bound to our node is started
// (start-vm.ts) or, once it has a deletionTimestamp, stopped (stop-vm.ts); a pod that vanished
// without us leaves PeerPods of this node to clean up.
import { TerminalError, hasFinalizer } from '../../runtime/index.ts';
import type { KubeObject, ReconcileContext, ReconcileFunc, ReconcileResult, Request } from '../../runtime/index.ts';
import { PEERPOD_FINALIZER, isPoolRecord } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import { ProviderUnavailableError } from '../providers/index.ts';
import type { AdaptorDeps } from './deps.ts';
import { currentPeerPod, isOnNode, ownerUidOf, peerPodsOf } from './peerpod-record.ts';
import { startPod } from './start-vm.ts';
import { deleteVms, releaseFinalizers, releaseLeftovers, stopPod } from './stop-vm.ts';
import { InvalidVmSizeError, vmSizeOf } from './vm-size.ts';

interface PodSpec {
  runtimeClassName?: string;
  nodeName?: string;
}

export function isPeerPod(pod: KubeObject, runtimeClassName: string): boolean {
  return (pod.spec as PodSpec | undefined)?.runtimeClassName === runtimeClassName;
}

export function adaptorReconciler(d: AdaptorDeps): ReconcileFunc {
  return async (req, ctx) => {
    try {
      return await reconcilePod(d, req, ctx);
    } catch (err) {
      if (!(err instanceof ProviderUnavailableError)) throw err;
      const pod = d.pods.get(req.namespace, req.name);
      if (pod) d.events.warning(pod, err.reason, err.message);
      ctx.log.warn({ reason: err.reason }, err.message);
      // A settings change requeues at once (the config map and secret are watched); this is a safety net.
      return { requeueAfter: d.opts.providerErrorRequeueMs };
    }
  };
}

async function reconcilePod(d: AdaptorDeps, req: Request, ctx: ReconcileContext): Promise<ReconcileResult | void> {
  const pod = d.pods.get(req.namespace, req.name);
  if (!pod || !isPeerPod(pod, d.opts.runtimeClassName)) {
    const leftovers = d.peerPods
      .list(req.namespace)
      .filter(
        (pp) =>
          !isPoolRecord(pp) &&
          isOnNode(pp, d.opts.nodeName) &&
          ownerName(pp) === req.name &&
          ownerUidOf(pp) !== pod?.metadata.uid,
      );
    if (leftovers.some((pp) => hasFinalizer(pp, PEERPOD_FINALIZER))) {
      await releaseLeftovers(d, req.namespace as string, req.name, leftovers, ctx);
    }
    return;
  }
  const owned = peerPodsOf(d.peerPods, pod.metadata.uid as string);
  if (pod.metadata.deletionTimestamp) return stopPod(d, pod, owned, ctx);

  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return;
  const current = currentPeerPod(owned);
  await releaseDeleted(d, pod, owned, current, ctx);
  let size;
  try {
    size = vmSizeOf(pod);
  } catch (err) {
    if (!(err instanceof InvalidVmSizeError)) throw err;
    d.events.warning(pod, 'InvalidVMSize', err.message);
    throw new TerminalError(err.message, { cause: err });
  }
  return startPod(d, pod, current, size, ctx);
}

/**
 * PeerPods of a live pod that someone deleted: we hold their finalizer, so we do what it promises
 * (delete the VM they name, unless the live PeerPod names the same one) rather than wait for the
 * PeerPod controller, which may not run.
 */
async function releaseDeleted(
  d: AdaptorDeps,
  pod: KubeObject,
  owned: PeerPod[],
  current: PeerPod | undefined,
  ctx: ReconcileContext,
): Promise<void> {
  const deleting = owned.filter((pp) => pp.metadata.deletionTimestamp && hasFinalizer(pp, PEERPOD_FINALIZER));
  if (deleting.length === 0) return;
  const keep = new Set(current?.spec?.instanceID ? [current.spec.instanceID] : []);
  const released = await deleteVms(d, pod.metadata.uid as string, deleting, pod, ctx, keep);
  await releaseFinalizers(d, released, ctx);
}

function ownerName(pp: PeerPod): string | undefined {
  const uid = ownerUidOf(pp);
  return pp.metadata.ownerReferences?.find((r) => r.uid === uid)?.name;
}
