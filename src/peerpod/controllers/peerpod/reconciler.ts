// The PeerPod reconcile. Two paths, as upstream peerpod-ctrl:
// - deleting, with `peer.pod/finalizer`: delete the instance through the provider named by
//   spec.cloudProvider, then remove that finalizer (only it, by a guarded JSON patch);
// - live: delete older PeerPods of the same owner (a restarted adaptor made a second VM, #1510).
// Fixed from upstream: an instance already gone counts as deleted; a PeerPod without an owner is
// reported, not a panic; failures become Warning events (on the PeerPod, and on the Pod while it
// exists), a condition and `status.lastError`; an unknown or misconfigured provider is a condition
// re-checked when the settings change, not a hot retry loop.
import {
  OWNER_UID_INDEX,
  Pods,
  TerminalError,
  getControllerOf,
  hasFinalizer,
  isNotFound,
  removeFinalizer,
} from '../../../runtime/index.ts';
import type {
  EventRecorder,
  KubeClient,
  KubeObject,
  Logger,
  ObjectReconcileFunc,
  OwnerReference,
  ReconcileContext,
  ReconcileResult,
  SharedInformer,
} from '../../../runtime/index.ts';
import { InvalidInstanceIdError, ProviderUnavailableError } from '../../providers/index.ts';
import type { CredentialSource } from '../../providers/index.ts';
import { ConditionTypes, PEERPOD_FINALIZER, POOL_LABEL, PeerPods, isPoolRecord, poolClaimOf } from '../../api/index.ts';
import type { PeerPod } from '../../api/index.ts';
import { observeReleased } from './metrics.ts';
import type { PeerPodMetrics } from './metrics.ts';
import type { ResolvedOptions } from './options.ts';
import type { ProviderPool } from './provider-pool.ts';
import { conditionStatus, writeStatus } from './status.ts';
import type { StatusChange } from './status.ts';

export interface ReconcilerDeps {
  client: KubeClient;
  peerPods: SharedInformer<PeerPod>;
  pool: ProviderPool;
  credentials: CredentialSource;
  events: EventRecorder;
  metrics: PeerPodMetrics;
  opts: ResolvedOptions;
  log: Logger;
}

/** The owner upstream compares on: the controller reference, else the first one. */
export function ownerOf(pp: KubeObject): OwnerReference | undefined {
  return getControllerOf(pp) ?? pp.metadata.ownerReferences?.[0];
}

/** spec.cloudProvider; when empty, CLOUD_PROVIDER from the settings (what the adaptor would have written). */
export function providerNameOf(pp: PeerPod, credentials: CredentialSource): string {
  return pp.spec?.cloudProvider?.trim() || credentials.configFor('').CLOUD_PROVIDER?.trim() || '';
}

export function peerPodReconciler(d: ReconcilerDeps): ObjectReconcileFunc<PeerPod> {
  return async (pp, ctx) => (pp.metadata.deletionTimestamp ? finalize(d, pp, ctx) : reconcileLive(d, pp, ctx));
}

async function finalize(d: ReconcilerDeps, pp: PeerPod, ctx: ReconcileContext): Promise<ReconcileResult | void> {
  if (!hasFinalizer(pp, PEERPOD_FINALIZER)) return;
  const provider = providerNameOf(pp, d.credentials);
  const id = pp.spec?.instanceID?.trim() ?? '';
  if (isPoolRecord(pp) && poolClaimOf(pp) && namedByAnotherLive(d, pp, id)) {
    // A spare handed to a pod whose PeerPod names it now: the VM is the pod's, only the record goes.
    await release(d, pp, ctx);
    return;
  }
  if (id === '') {
    // Nothing names a VM, so there is nothing to delete here. If a VM was made (upstream libvirt
    // #3247 wrote empty IDs), the orphan sweep finds it by its cluster tag.
    d.events.warning(pp, 'NoInstanceID', 'spec.instanceID is empty: nothing to delete; releasing the finalizer');
    await release(d, pp, ctx);
    return;
  }
  if (provider === '') {
    return providerProblem(d, pp, ctx, 'NoProvider', 'spec.cloudProvider is empty and CLOUD_PROVIDER is not set');
  }
  let cur = pp;
  const started = Date.now();
  try {
    const deleting = d.pool.deleteInstance(provider, id, 'finalizer', ctx.signal);
    // Awaited below, after a status write: its failure must not count as unhandled meanwhile.
    deleting.catch(() => undefined);
    // Phase Deleting only for deletes slow enough for someone to look: a write per PeerPod would
    // double the API writes of a mass cleanup. A phase that contradicts the deletion outright
    // (Unowned, or none yet: someone is watching a PeerPod no Pod owns) is replaced at once.
    if (
      pp.status?.phase !== 'Deleting' &&
      (staleWhileDeleting(pp) || (await slowerThan(deleting, SHOW_DELETING_AFTER_MS)))
    ) {
      cur = await writeStatus(d.client, pp, { phase: 'Deleting' }, ctx.signal);
    }
    await deleting;
  } catch (err) {
    if (err instanceof ProviderUnavailableError) return providerProblem(d, pp, ctx, err.reason, err.message);
    const message = (err as Error).message;
    const reason = err instanceof InvalidInstanceIdError ? 'InvalidInstanceID' : 'DeleteFailed';
    await warnEverywhere(d, pp, reason, `deleting ${provider} instance ${id}: ${message}`);
    await writeStatus(
      d.client,
      cur,
      {
        phase: 'DeleteFailed',
        lastError: message,
        conditions: [{ type: ConditionTypes.InstanceDeleted, status: 'False', reason, message }],
      },
      ctx.signal,
    );
    // An ID this provider cannot parse will not parse later either; a change of the object retries.
    if (err instanceof InvalidInstanceIdError) throw new TerminalError(message, { cause: err });
    throw err;
  }
  ctx.log.info({ provider, instanceID: id, ms: Date.now() - started }, 'instance deleted; releasing the finalizer');
  await release(d, cur, ctx);
  observeReleased(d.metrics, provider, pp);
}

const SHOW_DELETING_AFTER_MS = 1000;

function namedByAnotherLive(d: ReconcilerDeps, pp: PeerPod, id: string): boolean {
  return (
    id !== '' &&
    d.peerPods
      .list()
      .some((o) => o.metadata.uid !== pp.metadata.uid && !o.metadata.deletionTimestamp && o.spec?.instanceID === id)
  );
}

/** A phase that reads as "nothing is happening" while the PeerPod is being deleted. */
function staleWhileDeleting(pp: PeerPod): boolean {
  const phase = pp.status?.phase;
  return phase === undefined || phase === 'Unowned';
}

/** Whether `p` is still pending after `ms` (its outcome is left to the caller's own await). */
async function slowerThan(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), ms)));
  try {
    return await Promise.race([
      p.then(
        () => false,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function release(d: ReconcilerDeps, pp: PeerPod, ctx: ReconcileContext): Promise<void> {
  await removeFinalizer(d.client, PeerPods, pp, PEERPOD_FINALIZER, { signal: ctx.signal });
}

async function providerProblem(
  d: ReconcilerDeps,
  pp: PeerPod,
  ctx: ReconcileContext,
  reason: string,
  message: string,
): Promise<ReconcileResult> {
  if (conditionStatus(pp, ConditionTypes.ProviderReady) !== 'False' || pp.status?.lastError !== message) {
    await warnEverywhere(d, pp, reason, message);
  }
  await writeStatus(
    d.client,
    pp,
    {
      ...(pp.metadata.deletionTimestamp ? { phase: 'DeleteFailed' as const, lastError: message } : {}),
      conditions: [{ type: ConditionTypes.ProviderReady, status: 'False', reason, message }],
    },
    ctx.signal,
  );
  ctx.log.warn({ reason, provider: pp.spec?.cloudProvider }, message);
  // Fixing the settings requeues at once (the config map and secret are watched); this is a slow
  // safety net, e.g. for an operator upgrade that adds the provider.
  return { requeueAfter: d.opts.providerErrorRequeueMs };
}

/** A Warning on the PeerPod, and on its Pod when the Pod still exists (#2395: users watch the Pod). */
async function warnEverywhere(d: ReconcilerDeps, pp: PeerPod, reason: string, message: string): Promise<void> {
  d.events.warning(pp, reason, message);
  const owner = ownerOf(pp);
  if (!owner || owner.kind !== 'Pod' || !pp.metadata.namespace) return;
  try {
    const pod = await d.client.get(Pods, owner.name, pp.metadata.namespace);
    if (pod.metadata.uid === owner.uid) d.events.warning(pod, reason, `PeerPod ${pp.metadata.name}: ${message}`);
  } catch (err) {
    if (!isNotFound(err)) d.log.debug({ err }, 'could not read the owner Pod for an event');
  }
}

async function reconcileLive(d: ReconcilerDeps, pp: PeerPod, ctx: ReconcileContext): Promise<void> {
  if (isPoolRecord(pp)) {
    // A warm pool's spare: owned by its PeerPodConfig, never a duplicate of its siblings.
    const cfg = pp.metadata.labels?.[POOL_LABEL] ?? '';
    const owned = {
      type: ConditionTypes.Owned,
      status: 'True' as const,
      reason: 'PoolSpare',
      message: `pool of PeerPodConfig ${cfg}`,
    };
    await writeStatus(d.client, pp, { phase: 'Active', conditions: [owned] }, ctx.signal);
    return;
  }
  const owner = ownerOf(pp);
  if (!owner) {
    if (conditionStatus(pp, ConditionTypes.Owned) !== 'False') {
      d.events.warning(pp, 'NoOwner', 'PeerPod has no owner reference: duplicates cannot be detected');
    }
    await writeStatus(
      d.client,
      pp,
      {
        phase: 'Unowned',
        conditions: [
          {
            type: ConditionTypes.Owned,
            status: 'False',
            reason: 'NoOwnerReference',
            message: 'no ownerReferences; the adaptor sets one to the Pod',
          },
        ],
      },
      ctx.signal,
    );
    return;
  }
  await deleteOlderDuplicates(d, pp, owner, ctx);
  const conditions: NonNullable<StatusChange['conditions']> = [
    { type: ConditionTypes.Owned, status: 'True', reason: 'OwnerReference', message: `${owner.kind} ${owner.name}` },
  ];
  const provider = providerNameOf(pp, d.credentials);
  if (provider) {
    try {
      await d.pool.get(provider);
      conditions.push({ type: ConditionTypes.ProviderReady, status: 'True', reason: 'Verified', message: provider });
    } catch (err) {
      if (!(err instanceof ProviderUnavailableError)) throw err;
      if (conditionStatus(pp, ConditionTypes.ProviderReady) !== 'False') d.events.warning(pp, err.reason, err.message);
      conditions.push({
        type: ConditionTypes.ProviderReady,
        status: 'False',
        reason: err.reason,
        message: err.message,
      });
    }
  }
  await writeStatus(d.client, pp, { phase: 'Active', conditions }, ctx.signal);
}

/** Upstream's duplicate rule: same owner UID, strictly older creationTimestamp → delete it. */
async function deleteOlderDuplicates(
  d: ReconcilerDeps,
  pp: PeerPod,
  owner: OwnerReference,
  ctx: ReconcileContext,
): Promise<void> {
  const mine = Date.parse(pp.metadata.creationTimestamp ?? '');
  if (Number.isNaN(mine)) return;
  for (const other of d.peerPods.byIndex(OWNER_UID_INDEX, owner.uid)) {
    if (other.metadata.uid === pp.metadata.uid || other.metadata.deletionTimestamp) continue;
    if (ownerOf(other)?.uid !== owner.uid) continue;
    // Same second (the timestamp's precision): which is newer is unknown, so keep both.
    if (!(Date.parse(other.metadata.creationTimestamp ?? '') < mine)) continue;
    try {
      await d.client.delete(PeerPods, other.metadata.name as string, other.metadata.namespace, {
        preconditions: { uid: other.metadata.uid as string },
        signal: ctx.signal,
      });
      d.events.normal(
        pp,
        'DeletedDuplicate',
        `deleted older PeerPod ${other.metadata.name} of the same ${owner.kind} (instance ${other.spec?.instanceID ?? ''})`,
      );
    } catch (err) {
      if (!isNotFound(err) && (err as { code?: number }).code !== 409) throw err;
    }
  }
}
