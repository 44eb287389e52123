// Keeping pods plus spares within the node's capacity (plan.ts says why that bound). Two decisions
// add a VM to the node: the pool writing a new spare's record, and a pod going cold. Both count and
// write under one lock of this process (one adaptor per node), with the records written and seen by
// the cache before it is released, so neither decides on a count the other is about to change.
// The lock only orders decisions; what is counted always comes from the API (caches).
import type { KubeObject, ReconcileContext } from '../../../runtime/index.ts';
import type { PeerPod } from '../../api/index.ts';
import type { CloudProvider } from '../../providers/index.ts';
import { KeyedLock } from '../../providers/keyed-lock.ts';
import type { AdaptorDeps } from '../deps.ts';
import { isPeerPod } from '../reconciler.ts';
import { nodeCapacity } from './plan.ts';
import { holdsSpareVm, poolRecordsOn, retireSpare } from './records.ts';

const lock = new KeyedLock();

/** Runs `fn` holding this node's capacity lock. */
export function withRoomLock<T>(d: AdaptorDeps, fn: () => Promise<T>): Promise<T> {
  return lock.run(`${d.opts.runtimeClassName}/${d.opts.nodeName}`, fn);
}

/** Peer pods of ours on this node that hold, or will hold, a VM. */
export function peerPodsOnNode(d: AdaptorDeps): number {
  return d.pods.list().filter((p) => {
    if (!isPeerPod(p, d.opts.runtimeClassName)) return false;
    const phase = (p.status as { phase?: string } | undefined)?.phase;
    return phase !== 'Succeeded' && phase !== 'Failed';
  }).length;
}

/** This node's spares of `resource`'s pool (records not handed to a pod, including ones being retired). */
export function sparesOnNode(d: AdaptorDeps): PeerPod[] {
  return poolRecordsOn(d).filter(holdsSpareVm);
}

/**
 * Before a cold create: if the pods (this one included) plus the spares would exceed the node's
 * capacity, retire spares until they fit — oldest first, a spare being retired already counting as
 * gone only once its VM is.
 */
export async function makeRoom(
  d: AdaptorDeps,
  cloud: CloudProvider,
  resource: string | undefined,
  pod: KubeObject,
  ctx: ReconcileContext,
): Promise<void> {
  if (!resource || sparesOnNode(d).length === 0) return;
  await withRoomLock(d, async () => {
    const capacity = nodeCapacity(d.nodes.get(undefined, d.opts.nodeName), resource);
    if (capacity === undefined) return;
    const spares = sparesOnNode(d).sort((a, b) =>
      String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)),
    );
    let over = peerPodsOnNode(d) + spares.length - capacity;
    for (const spare of spares) {
      if (over <= 0) break;
      await retireSpare(d, cloud, spare, `room for pod ${pod.metadata.namespace}/${pod.metadata.name}`, ctx);
      over--;
    }
  });
}
