// Running a pod in a VM, one idempotent step at a time, each re-derived from the API and the
// provider on every reconcile:
//   1. the PeerPod exists (written before the VM, so a VM never exists that no record can lead to);
//   2. the VM exists: createInstance adopts a VM of the same name (`podvm-<pod>-<uid[:8]>`), so a
//      retry after a crash at any point finds the VM it made instead of making a second one; a
//      create that fails goes through the create-retry guard (create-guard.ts);
//   3. the PeerPod names the VM (spec.instanceID, spec.cloudProvider);
//   4. the pod reports Running and Ready with the VM's IP.
// A warm start (pool/claim.ts) claims a spare instead of steps 1 and 2, reports the pod Running, then
// writes the PeerPod naming the VM: the claimed record holds the VM until the PeerPod does.
// The sandbox ID upstream takes from the kata shim does not exist here: the pod UID stands in for it
// (unique per pod, stable across restarts, and a new pod of the same name gets a new VM name).
import { TerminalError, isAlreadyExists, waitForCache } from '../../runtime/index.ts';
import type { KubeObject, ReconcileContext, ReconcileResult } from '../../runtime/index.ts';
import type { Instance } from '../providers/index.ts';
import { PeerPods, clearCreateAttempts } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import type { AdaptorDeps } from './deps.ts';
import { hostIpOf, podRef } from './deps.ts';
import { createGuarded } from './create-guard.ts';
import { observePodRunning } from './lifecycle.ts';
import { missingAnnotations, recordAnnotations } from './peerpod-annotations.ts';
import { newPeerPod, ownerUidOf } from './peerpod-record.ts';
import { reportsRunning, runningStatus, writeRunningStatus } from './pod-status.ts';
import type { VmSize } from './vm-size.ts';
import { claimSpare, claimedFrom, finishClaim, recordClaim, whyNoSpare } from './pool/claim.ts';
import type { Claimed, ClaimedSpare } from './pool/claim.ts';
import { recordedInstance } from './pool/records.ts';
import { makeRoom } from './pool/room.ts';
import { poolResourceOf } from './pool/setup.ts';

export async function startPod(
  d: AdaptorDeps,
  pod: KubeObject,
  current: PeerPod | undefined,
  size: VmSize,
  ctx: ReconcileContext,
): Promise<ReconcileResult | void> {
  if (current?.spec?.instanceID && reportsRunning(pod)) return;
  const other = current?.spec?.cloudProvider;
  if (current?.spec?.instanceID && other && other !== d.providers.name()) {
    // Replacing it would leak a VM this adaptor cannot reach; a person has to decide.
    const message = `PeerPod ${current.metadata.name} names a ${other} VM but this node's provider is ${d.providers.name() || 'unset'}`;
    d.events.warning(pod, 'ProviderMismatch', message);
    throw new TerminalError(message);
  }
  // The provider is resolved first, so no PeerPod is written while none is configured.
  const chosen = await d.providers.use(async (cloud, name) => {
    // A warm spare (pool/claim.ts): for a pod with no PeerPod yet, or one whose PeerPod came from a spare.
    const resumed = current && warmRecord(current);
    if (resumed) return { recorded: resumed.peerPod, created: { vm: resumed.vm }, provider: name };
    const spare = current ? undefined : await claimWarm(d, pod, size, name, ctx);
    if (spare) return { spare, provider: name };
    const noFit = current ? undefined : whyNoSpare(d, name, size);
    if (noFit) d.events.normal(pod, 'NoFittingSpare', noFit);
    // Pods plus spares stay within the node's capacity: a cold VM may first take a spare's place.
    await makeRoom(d, cloud, poolResourceOf(d), pod, ctx);
    const pp = current ?? (await ensurePeerPod(d, pod, name, ctx));
    return { recorded: pp, created: await createGuarded(d, cloud, name, pod, pp, size, ctx), provider: name };
  });
  if (chosen.spare) return startWarm(d, pod, chosen.spare, chosen.provider, ctx);
  const { recorded, created, provider } = chosen;
  if (!created.vm) return created.result;
  const { vm } = created;
  const from = claimedFrom(recorded);
  if (!from) await d.opts.hooks.afterCreateInstance?.(pod, vm, ctx.signal);
  await recordInstance(d, pod, recorded, vm, provider, ctx);
  const ip = vm.ips[0];
  // Retried with backoff: providers that return before the address is known fill it in later.
  if (!ip) throw new Error(`VM ${vm.name} (${vm.id}) has no IP address yet`);
  if (reportsRunning(pod, ip)) return;
  await reportRunning(d, pod, vm, provider, from ? 'claim' : 'cold', ctx);
  if (from) await finishClaimOf(d, recorded, from, ctx);
}

/** Step 1 of a claim, counted as a warm start under way until startWarm ends (or the claim fails). */
async function claimWarm(
  d: AdaptorDeps,
  pod: KubeObject,
  size: VmSize,
  provider: string,
  ctx: ReconcileContext,
): Promise<ClaimedSpare | undefined> {
  const starts = d.warmStarts ?? { count: 0 };
  starts.count++;
  let spare: ClaimedSpare | undefined;
  try {
    spare = await claimSpare(d, pod, size, provider, ctx);
    return spare;
  } finally {
    if (!spare) starts.count--;
  }
}

/**
 * A claimed spare to Running: the pod's Running status first (the claimed record holds the VM for it
 * meanwhile), then the PeerPod naming the VM, then the record leaves. The PeerPod write is off the
 * pod's way up, and does not compete with its status write; a restart in between resumes from the
 * claimed record.
 */
async function startWarm(
  d: AdaptorDeps,
  pod: KubeObject,
  spare: ClaimedSpare,
  provider: string,
  ctx: ReconcileContext,
): Promise<void> {
  try {
    const { vm } = spare;
    const ip = vm.ips[0];
    if (!ip) throw new Error(`spare VM ${vm.name} (${vm.id}) has no IP address recorded`);
    if (!reportsRunning(pod, ip)) await reportRunning(d, pod, vm, provider, 'claim', ctx);
  } finally {
    // The rest is bookkeeping: the pool may refill now.
    if (d.warmStarts) d.warmStarts.count--;
  }
  const peerPod = await recordClaim(d, pod, spare, provider, ctx);
  await d.opts.hooks.afterClaimRecorded?.(pod, peerPod, ctx.signal);
  await finishClaimOf(d, peerPod, spare.record.metadata.name as string, ctx);
}

/** Step 4: the pod reports Running and Ready in its VM. */
async function reportRunning(
  d: AdaptorDeps,
  pod: KubeObject,
  vm: Instance,
  provider: string,
  start: 'claim' | 'cold',
  ctx: ReconcileContext,
): Promise<void> {
  const ip = vm.ips[0] as string;
  const written = await writeRunningStatus(d.client, pod, runningStatus(pod, ip, hostIpOf(d), vm.id), ctx.signal);
  observePodRunning(d, pod, written, vm, provider, start);
  // Our own status write comes back as an event; the next reconcile must see it to do nothing.
  await waitForCache(d.pods, written);
  ctx.log.info({ pod: podRef(pod), instanceID: vm.id, ip, start }, 'pod running in its VM');
}

/** A PeerPod made from a spare names its VM already: no create, the recorded VM is the pod's. */
function warmRecord(pp: PeerPod): Claimed | undefined {
  return claimedFrom(pp) && pp.spec?.instanceID ? { peerPod: pp, vm: recordedInstance(pp) } : undefined;
}

/** Step 3 of a claim, off the pod's way up; the pool reconcile does it if this fails. */
async function finishClaimOf(d: AdaptorDeps, pp: PeerPod, record: string, ctx: ReconcileContext): Promise<void> {
  const r = d.peerPods.get(d.opts.namespace, record);
  if (!r) return;
  try {
    await finishClaim(d, r, ctx);
  } catch (err) {
    ctx.log.warn({ err, record, peerPod: pp.metadata.name }, 'could not remove the claimed pool record yet');
  }
}

async function ensurePeerPod(
  d: AdaptorDeps,
  pod: KubeObject,
  provider: string,
  ctx: ReconcileContext,
): Promise<PeerPod> {
  const want = newPeerPod(pod, provider, d.opts.nodeName);
  let pp: PeerPod;
  try {
    pp = await d.client.create<PeerPod>(PeerPods, want, { signal: ctx.signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    // Written by an earlier attempt the cache had not shown yet.
    pp = await d.client.get<PeerPod>(PeerPods, want.metadata.name as string, want.metadata.namespace, {
      signal: ctx.signal,
    });
    if (ownerUidOf(pp) !== pod.metadata.uid || pp.metadata.deletionTimestamp) {
      throw new Error(`PeerPod ${pp.metadata.namespace}/${pp.metadata.name} exists and belongs to another pod`);
    }
    return pp;
  }
  await waitForCache(d.peerPods.holding(pp), pp);
  ctx.log.info({ pod: podRef(pod), peerPod: pp.metadata.name }, 'PeerPod created');
  return pp;
}

async function recordInstance(
  d: AdaptorDeps,
  pod: KubeObject,
  pp: PeerPod,
  vm: Instance,
  provider: string,
  ctx: ReconcileContext,
): Promise<PeerPod> {
  const previous = pp.spec?.instanceID ?? '';
  const missing = missingAnnotations(pp, recordAnnotations(d.opts.nodeName, pod, vm));
  // A VM that worked ends the create-retry guard's count (null removes the annotations).
  const cleared = clearCreateAttempts(pp);
  const annotations = missing || Object.keys(cleared).length > 0 ? { ...missing, ...cleared } : undefined;
  if (previous === vm.id && pp.spec?.cloudProvider === provider && !annotations) return pp;
  const patch = {
    // Adopting an upstream-written PeerPod: the node annotation lets this node's watch see it.
    ...(annotations ? { metadata: { annotations } } : {}),
    spec: { instanceID: vm.id, cloudProvider: provider },
  };
  const written = await d.client.patch<PeerPod>(
    PeerPods,
    pp.metadata.name as string,
    pp.metadata.namespace,
    patch,
    'merge',
    {
      signal: ctx.signal,
    },
  );
  await waitForCache(d.peerPods.holding(written), written);
  if (previous && previous !== vm.id) {
    // The recorded VM died and a new one took its name; make sure the old one is really gone.
    await d.providers.use((cloud) => cloud.deleteInstance(previous));
  }
  if (previous !== vm.id) {
    d.events.normal(
      pod,
      'VMCreated',
      `${provider} VM ${vm.name} (${vm.id}) is running${vm.ips[0] ? ` at ${vm.ips[0]}` : ''}; recorded in PeerPod ${pp.metadata.name}`,
    );
  }
  return written;
}
