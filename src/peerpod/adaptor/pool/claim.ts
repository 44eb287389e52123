// A peer pod taking a warm spare instead of waiting for a new VM. Three writes, each safe to die
// after (api/pool.ts):
//   1. claim: the pool record gets `peerpods.io/pool-claimed-by` by a merge patch carrying its
//      resourceVersion, so of two pods racing for one spare exactly one wins (the other gets 409
//      Conflict and tries the next spare, or goes cold). From here the record holds the VM for the pod;
//   2. the pod's PeerPod is created naming the spare's VM (and the record it came from): from here
//      on the VM is the pod's, deleted with the pod like any other. Written after the pod's Running
//      status (start-vm.ts), off its way up, so a warm start costs one PeerPod write (step 1) on top
//      of what any pod start costs;
//   3. the record goes without its VM (finalizer removed first, then deleted), after the pod is
//      reported Running: it is off the pod's way up.
// A restarted adaptor resumes a claim from the record (claimed by this pod) at step 2. A claim whose
// claimant is gone before step 2 is retired with its VM (pool/reconciler.ts): the pod may have been
// reported Running in it, so the VM is never handed to another pod.
import { isAlreadyExists, isConflict, isNotFound, removeFinalizer } from '../../../runtime/index.ts';
import type { KubeObject, ReconcileContext } from '../../../runtime/index.ts';
import {
  PEERPOD_FINALIZER,
  POOL_CLAIMED_BY_ANNOTATION,
  POOL_CLAIMED_FROM_ANNOTATION,
  PeerPods,
  formatVmSize,
  poolClaimOf,
  poolSizeFits,
} from '../../api/index.ts';
import type { PeerPod } from '../../api/index.ts';
import type { Instance } from '../../providers/index.ts';
import type { AdaptorDeps } from '../deps.ts';
import { podRef } from '../deps.ts';
import { recordAnnotations } from '../peerpod-annotations.ts';
import { newPeerPod, ownerUidOf } from '../peerpod-record.ts';
import type { VmSize } from '../vm-size.ts';
import { isSpare, poolRecordsOn, recordSize, recordedInstance } from './records.ts';

export interface Claimed {
  peerPod: PeerPod;
  vm: Instance;
}

/** Step 1 done: the record claimed by the pod, whose PeerPod is still to be written (recordClaim). */
export interface ClaimedSpare {
  record: PeerPod;
  vm: Instance;
}

function claimValue(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}`;
}

/** This node's spares of this provider. */
function sparesOf(d: AdaptorDeps, provider: string): PeerPod[] {
  return poolRecordsOn(d).filter((pp) => isSpare(pp) && pp.spec?.cloudProvider === provider);
}

/** Whether a pod of this size may take the spare (spares boot the default image). */
function fits(size: VmSize, spare: PeerPod): boolean {
  return !size.image && poolSizeFits(size, recordSize(spare));
}

/** Spares this pod fits, smallest first (least waste), then oldest. */
function candidates(d: AdaptorDeps, provider: string, size: VmSize): PeerPod[] {
  return sparesOf(d, provider)
    .filter((pp) => fits(size, pp))
    .sort((a, b) => {
      const sa = recordSize(a);
      const sb = recordSize(b);
      return (
        sa.vcpus - sb.vcpus ||
        sa.memoryMiB - sb.memoryMiB ||
        String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp))
      );
    });
}

/**
 * Step 1: a spare this pod now holds, or undefined when no spare fits (the caller goes cold). A record
 * this pod claimed before (a restart between steps 1 and 2) is taken up again. Only for a pod with no
 * PeerPod yet; a pod with a custom image never fits (spares boot the default one).
 */
export async function claimSpare(
  d: AdaptorDeps,
  pod: KubeObject,
  size: VmSize,
  provider: string,
  ctx: ReconcileContext,
): Promise<ClaimedSpare | undefined> {
  const mine = claimValue(pod);
  let record = poolRecordsOn(d).find((pp) => pp.metadata.annotations?.[POOL_CLAIMED_BY_ANNOTATION] === mine);
  if (!record && d.poolHealth?.checkedAt) {
    for (const spare of candidates(d, provider, size)) {
      record = await markClaimed(d, spare, mine, ctx);
      if (record) break;
    }
  }
  if (!record) return undefined;
  await d.opts.hooks.afterSpareClaimed?.(pod, record, ctx.signal);
  return { record, vm: recordedInstance(record) };
}

/**
 * Why a pod found no spare although the node has some, for the pod's Event: a user who turned the
 * pool on and still sees a cold start should not have to read the matching rules to know why.
 * Undefined when the node has no spare of this provider, or when one fits (it was taken by another
 * pod meanwhile, or the spares are not checked yet since the adaptor started): no mismatch to explain.
 */
export function whyNoSpare(d: AdaptorDeps, provider: string, size: VmSize): string | undefined {
  const spares = sparesOf(d, provider);
  if (spares.length === 0 || spares.some((pp) => fits(size, pp))) return undefined;
  const sizes = [...new Set(spares.map((pp) => formatVmSize(recordSize(pp))))].join(', ');
  const why = size.image
    ? `the pod asks for its own image (${size.image}) and spares boot the default one`
    : `the pod asks for ${formatVmSize(size)}, spares are ${sizes} (a part left to the default fits only a default spare)`;
  return `none of the ${spares.length} warm ${provider} spare(s) on ${d.opts.nodeName} fits: ${why}; making a new VM`;
}

/** Step 2: the pod's PeerPod names the claimed VM. */
export async function recordClaim(
  d: AdaptorDeps,
  pod: KubeObject,
  spare: ClaimedSpare,
  provider: string,
  ctx: ReconcileContext,
): Promise<PeerPod> {
  const { record } = spare;
  await d.opts.hooks.beforeClaimRecorded?.(pod, record, ctx.signal);
  const peerPod = await createClaimedPeerPod(d, pod, record, provider, ctx);
  d.events.normal(
    pod,
    'VMClaimed',
    `took the warm ${provider} VM ${record.spec?.instanceID} from pool record ${record.metadata.name}; recorded in PeerPod ${peerPod.metadata.name}`,
  );
  ctx.log.info(
    { pod: podRef(pod), record: record.metadata.name, instanceID: record.spec?.instanceID },
    'spare VM claimed',
  );
  return peerPod;
}

/** Attempts at one spare: a refusal may only mean someone else wrote it (the PeerPod controller's status). */
const CLAIM_ATTEMPTS = 3;

async function markClaimed(
  d: AdaptorDeps,
  spare: PeerPod,
  claim: string,
  ctx: ReconcileContext,
): Promise<PeerPod | undefined> {
  let cur = spare;
  for (let attempt = 1; ; attempt++) {
    // A merge patch carrying the resourceVersion it read: a record changed since (claimed, retired)
    // is refused with 409, as an update would be, for a fraction of an update's body.
    const patch = {
      metadata: { resourceVersion: cur.metadata.resourceVersion, annotations: { [POOL_CLAIMED_BY_ANNOTATION]: claim } },
    };
    try {
      // Not waited for in the cache: a reconcile that still sees the record unclaimed meets the same refusal.
      return await d.client.patch<PeerPod>(
        PeerPods,
        cur.metadata.name as string,
        cur.metadata.namespace,
        patch,
        'merge',
        {
          signal: ctx.signal,
        },
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isConflict(err) || attempt >= CLAIM_ATTEMPTS) {
        if (isConflict(err)) return undefined;
        throw err;
      }
    }
    // Read it again: still a spare (only its status moved) → try again; claimed or retired → not ours.
    try {
      cur = await d.client.get<PeerPod>(PeerPods, spare.metadata.name as string, spare.metadata.namespace, {
        signal: ctx.signal,
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (!isSpare(cur)) return undefined;
  }
}

async function createClaimedPeerPod(
  d: AdaptorDeps,
  pod: KubeObject,
  record: PeerPod,
  provider: string,
  ctx: ReconcileContext,
): Promise<PeerPod> {
  const base = newPeerPod(pod, provider, d.opts.nodeName);
  const vm = recordedInstance(record);
  const want: PeerPod = {
    ...base,
    metadata: {
      ...base.metadata,
      annotations: {
        ...base.metadata.annotations,
        ...recordAnnotations(d.opts.nodeName, pod, vm),
        [POOL_CLAIMED_FROM_ANNOTATION]: record.metadata.name as string,
      },
    },
    spec: { cloudProvider: provider, instanceID: vm.id },
  };
  try {
    // Not waited for in the cache either: a reconcile that misses it resumes the claim and meets AlreadyExists.
    return await d.client.create<PeerPod>(PeerPods, want, { signal: ctx.signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const pp = await d.client.get<PeerPod>(PeerPods, want.metadata.name as string, want.metadata.namespace, {
      signal: ctx.signal,
    });
    if (ownerUidOf(pp) !== pod.metadata.uid || pp.spec?.instanceID !== vm.id) {
      throw new Error(`PeerPod ${pp.metadata.namespace}/${pp.metadata.name} exists and does not name the claimed VM`);
    }
    return pp;
  }
}

/**
 * Step 3: the record leaves without its VM. The finalizer goes first, so a deletion seen by the
 * PeerPod controller never deletes a VM that is now a pod's.
 */
export async function finishClaim(d: AdaptorDeps, record: PeerPod, ctx: ReconcileContext): Promise<void> {
  if (!poolClaimOf(record)) return;
  let cur: PeerPod = record;
  if (cur.metadata.finalizers?.includes(PEERPOD_FINALIZER)) {
    cur = await removeFinalizer(d.client, PeerPods, cur, PEERPOD_FINALIZER, { signal: ctx.signal });
  }
  try {
    await d.client.delete(PeerPods, cur.metadata.name as string, cur.metadata.namespace, {
      preconditions: { uid: cur.metadata.uid as string },
      signal: ctx.signal,
    });
  } catch (err) {
    if (!isNotFound(err) && !isConflict(err)) throw err;
  }
}

/** The pool record a pod's PeerPod says its VM came from (a warm start), if any. */
export function claimedFrom(pp: PeerPod | undefined): string | undefined {
  return pp?.metadata.annotations?.[POOL_CLAIMED_FROM_ANNOTATION];
}
