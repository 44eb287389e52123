// The warm pool's reconcile on one node, keyed by PeerPodConfig. Each pass re-derives everything from
// the API (the pool records, the pods on the node, the node's capacity) and, now and then, the
// provider (are the spares' VMs still there?):
//   1. claims: a record whose claimant's PeerPod names its VM leaves (without the VM); a record whose
//      claimant is gone before that is retired with its VM (the pod may have run in it);
//   2. records being deleted (the config went, the garbage collector deleted them) have their VMs
//      deleted and their finalizer released;
//   3. spares whose VM vanished, that outlived maxAge, of a size no longer asked for, or beyond the
//      node's share are retired;
//   4. under the node's capacity lock (room.ts), new records are written up to the share, bounded by
//      what the pods leave of the capacity and by maxConcurrentCreates records still being made;
//   5. the VMs of records being made are created (adopted by name after a crash) and recorded;
//   6. the config's `status.pool.nodes[<node>]` says what is wanted and what is ready.
import { isNotFound, waitForCache } from '../../../runtime/index.ts';
import type { ReconcileContext, ReconcileFunc, ReconcileResult, Request } from '../../../runtime/index.ts';
import { POOL_LABEL, PeerPodAnnotations, PeerPodConfigs, PeerPods, poolClaimOf, poolSizeKey } from '../../api/index.ts';
import type { PeerPod, PeerPodConfig, PoolNodeStatus, PoolSize } from '../../api/index.ts';
import { CLUSTER_UID_TAG, ProviderUnavailableError } from '../../providers/index.ts';
import type { CloudProvider } from '../../providers/index.ts';
import { Pods } from '../../../runtime/index.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import type { AdaptorDeps } from '../deps.ts';
import { DEFAULT_RUNTIME_CLASS } from '../defaults.ts';
import { peerPodsOf } from '../peerpod-record.ts';
import { finishClaim } from './claim.ts';
import { nodeCapacity, nodePlan, poolConfigFor, sparesAllowed } from './plan.ts';
import type { NodePoolPlan } from './plan.ts';
import { POOL_TAG, newPoolRecord, poolRecordsOn, recordSize, retireSpare, spareVmTags } from './records.ts';
import { peerPodsOnNode, withRoomLock } from './room.ts';

/** How often the spares' VMs are listed to find ones that died. */
const HEALTH_CHECK_MS = 30_000;
/** A spare recorded this recently may not be listed yet by a provider with a lagging list. */
const HEALTH_GRACE_MS = 10_000;
/** A claim in progress is looked at again after this long. */
const CLAIM_RECHECK_MS = 2_000;
/** While a warm start is under way on the node, the pool's pass waits this long and looks again. */
const WARM_START_YIELD_MS = 25;

export interface PoolState {
  configs: {
    list(namespace?: string): PeerPodConfig[];
    get(namespace: string | undefined, name: string): PeerPodConfig | undefined;
  };
}

export function poolReconciler(d: AdaptorDeps, state: PoolState): ReconcileFunc {
  return async (req, ctx) => {
    // A claim wakes this pass (its record changed) while the pod it serves is on its way up: the
    // refill's writes would queue in front of the pod's on the adaptor and the API server.
    if ((d.warmStarts?.count ?? 0) > 0) return { requeueAfter: WARM_START_YIELD_MS };
    try {
      return await d.providers.use((cloud, provider) => reconcilePool(d, state, cloud, provider, req, ctx));
    } catch (err) {
      if (!(err instanceof ProviderUnavailableError)) throw err;
      return { requeueAfter: d.opts.providerErrorRequeueMs };
    }
  };
}

function ofConfig(d: AdaptorDeps, name: string): PeerPod[] {
  return poolRecordsOn(d).filter((pp) => pp.metadata.labels?.[POOL_LABEL] === name);
}

async function reconcilePool(
  d: AdaptorDeps,
  state: PoolState,
  cloud: CloudProvider,
  provider: string,
  req: Request,
  ctx: ReconcileContext,
): Promise<ReconcileResult | void> {
  const chosen = poolConfigFor(state.configs.list(d.opts.namespace), d.opts.runtimeClassName, DEFAULT_RUNTIME_CLASS);
  const cfg = chosen?.metadata.name === req.name ? chosen : undefined;
  const plan = cfg ? nodePlan(cfg, d.opts.nodeName) : undefined;
  let requeue: number | undefined;
  const soon = (ms: number): void => {
    requeue = Math.min(requeue ?? Infinity, ms);
  };

  for (const r of ofConfig(d, req.name).filter((pp) => poolClaimOf(pp))) {
    if (!(await settleClaim(d, cloud, r, ctx))) soon(CLAIM_RECHECK_MS);
  }
  for (const r of ofConfig(d, req.name).filter((pp) => !poolClaimOf(pp) && pp.metadata.deletionTimestamp)) {
    await retireSpare(d, cloud, r, 'record deleted', ctx);
  }
  let live = unclaimedLive(d, req.name);
  if (!plan || !cfg) {
    for (const r of live) await retireSpare(d, cloud, r, 'no pool configured', ctx);
    return;
  }
  // Spares of another provider (CLOUD_PROVIDER changed) are not this provider's to make or take.
  for (const r of live.filter((pp) => pp.spec?.cloudProvider && pp.spec.cloudProvider !== provider)) {
    await retireSpare(d, cloud, r, `made by ${r.spec?.cloudProvider}, the node now uses ${provider}`, ctx);
  }
  live = unclaimedLive(d, req.name);
  await retireDead(d, cloud, cfg, live, ctx);
  live = unclaimedLive(d, req.name);
  const now = Date.now();
  if (plan.maxAgeMs !== undefined) {
    for (const r of live) {
      const age = now - Date.parse(r.metadata.creationTimestamp ?? '');
      if (r.spec?.instanceID && age >= plan.maxAgeMs) await retireSpare(d, cloud, r, 'older than maxAge', ctx);
      else soon(Math.max(100, plan.maxAgeMs - age));
    }
  }
  live = unclaimedLive(d, req.name);
  await retireSurplus(d, cloud, plan, live, ctx);

  const created = await withRoomLock(d, () => writeNewRecords(d, cfg, plan, provider, ctx));
  const pending = unclaimedLive(d, req.name).filter((r) => !r.spec?.instanceID);
  const failures = (await Promise.allSettled(pending.map((r) => makeSpareVm(d, cloud, cfg, r, ctx)))).filter(
    (o): o is PromiseRejectedResult => o.status === 'rejected',
  );
  if (created > 0 || pending.length > 0) soon(0);
  await writePoolStatus(d, cfg, plan, ctx);
  if (failures.length > 0) throw failures[0].reason;
  if (plan.sizes.length > 0) soon(HEALTH_CHECK_MS);
  return requeue !== undefined ? { requeueAfter: Math.max(1, requeue) } : undefined;
}

function unclaimedLive(d: AdaptorDeps, cfgName: string): PeerPod[] {
  return ofConfig(d, cfgName).filter((pp) => !poolClaimOf(pp) && !pp.metadata.deletionTimestamp);
}

/**
 * A claimed record: done when the claimant's PeerPod names the VM (the record leaves). When the
 * claimant is gone, or has a PeerPod naming another VM, the record is retired with its VM: the pod
 * may have been reported Running in it (its status is written before its PeerPod), and a VM
 * a pod ran in is never handed to another. True when settled.
 */
async function settleClaim(d: AdaptorDeps, cloud: CloudProvider, r: PeerPod, ctx: ReconcileContext): Promise<boolean> {
  const claim = poolClaimOf(r);
  if (!claim) return true;
  // Any PeerPod of the claimant naming the VM, even one being deleted: the VM is the pod's (and goes with it).
  const owned = peerPodsOf(d.peerPods, claim.uid);
  if (owned.some((pp) => pp.spec?.instanceID && pp.spec.instanceID === r.spec?.instanceID)) {
    await finishClaim(d, r, ctx);
    return true;
  }
  let pod: KubeObject | undefined;
  try {
    pod = await d.client.get(Pods, claim.name, claim.namespace, { signal: ctx.signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const claimantAlive = pod?.metadata.uid === claim.uid && !pod.metadata.deletionTimestamp;
  if (claimantAlive && owned.length === 0) return false; // the pod's reconcile is between steps 1 and 2
  const why = `its claimant ${claim.namespace}/${claim.name} left before its PeerPod named the VM`;
  await retireSpare(d, cloud, r, why, ctx, { abandonedClaim: true });
  return true;
}

/** Spares whose VM the provider no longer lists (it died, or was deleted behind our back). */
async function retireDead(
  d: AdaptorDeps,
  cloud: CloudProvider,
  cfg: PeerPodConfig,
  live: PeerPod[],
  ctx: ReconcileContext,
): Promise<void> {
  const health = d.poolHealth ?? { checkedAt: 0 };
  const now = Date.now();
  if (health.checkedAt && now - health.checkedAt < HEALTH_CHECK_MS) return;
  const recorded = live.filter((r) => r.spec?.instanceID);
  const tags = { [CLUSTER_UID_TAG]: await d.clusterUid(ctx.signal), [POOL_TAG]: cfg.metadata.name as string };
  const ids = new Set(recorded.length > 0 ? (await cloud.listInstances(tags)).map((vm) => vm.id) : []);
  for (const r of recorded) {
    const age = now - Date.parse(r.metadata.creationTimestamp ?? '');
    if (!ids.has(r.spec?.instanceID as string) && age > HEALTH_GRACE_MS) {
      await retireSpare(d, cloud, r, 'its VM is gone', ctx);
    }
  }
  // Only now may pods take spares (claim.ts): every one left names a VM the provider listed.
  health.checkedAt = now;
}

/** Records beyond the node's share for their size, or of a size no longer asked for: newest first. */
async function retireSurplus(
  d: AdaptorDeps,
  cloud: CloudProvider,
  plan: NodePoolPlan,
  live: PeerPod[],
  ctx: ReconcileContext,
): Promise<void> {
  const want = countBySize(plan.sizes);
  const newestFirst = [...live].sort((a, b) =>
    String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)),
  );
  const have = new Map<string, number>();
  for (const r of newestFirst) have.set(poolSizeKey(recordSize(r)), (have.get(poolSizeKey(recordSize(r))) ?? 0) + 1);
  for (const r of newestFirst) {
    const key = poolSizeKey(recordSize(r));
    const n = have.get(key) ?? 0;
    if (n > (want.get(key) ?? 0)) {
      await retireSpare(d, cloud, r, 'the pool was shrunk', ctx);
      have.set(key, n - 1);
    }
  }
}

function countBySize(sizes: PoolSize[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of sizes) out.set(poolSizeKey(s), (out.get(poolSizeKey(s)) ?? 0) + 1);
  return out;
}

/**
 * Writes the records of spares still missing, within the capacity the pods leave and the create
 * concurrency. Runs under the node's capacity lock. Returns how many it wrote.
 */
async function writeNewRecords(
  d: AdaptorDeps,
  cfg: PeerPodConfig,
  plan: NodePoolPlan,
  provider: string,
  ctx: ReconcileContext,
): Promise<number> {
  const name = cfg.metadata.name as string;
  // Records of a config that is gone (being retired) still hold VMs of this node's resource.
  const all = poolRecordsOn(d).filter((pp) => !poolClaimOf(pp));
  const capacity = nodeCapacity(d.nodes.get(undefined, d.opts.nodeName), plan.resource);
  const allowed = sparesAllowed(plan.sizes.length, capacity, peerPodsOnNode(d) + (all.length - ofLive(all, name)));
  const live = all.filter((pp) => pp.metadata.labels?.[POOL_LABEL] === name);
  const making = live.filter((pp) => !pp.spec?.instanceID).length;
  let room = Math.min(allowed - live.length, plan.maxConcurrentCreates - making);
  if (room <= 0) return 0;
  const have = countBySize(live.filter((pp) => !pp.metadata.deletionTimestamp).map(recordSize));
  let written = 0;
  for (const size of plan.sizes) {
    if (room <= 0) break;
    const key = poolSizeKey(size);
    const n = have.get(key) ?? 0;
    if (n > 0) {
      have.set(key, n - 1);
      continue;
    }
    const pp = await d.client.create<PeerPod>(PeerPods, newPoolRecord(cfg, d.opts.nodeName, provider, size), {
      signal: ctx.signal,
    });
    await waitForCache(d.peerPods.holding(pp), pp);
    room--;
    written++;
  }
  return written;
}

function ofLive(records: PeerPod[], name: string): number {
  return records.filter((pp) => pp.metadata.labels?.[POOL_LABEL] === name).length;
}

/** Creates (or, after a crash, adopts by name) the VM of a record being made, and records it. */
async function makeSpareVm(
  d: AdaptorDeps,
  cloud: CloudProvider,
  cfg: PeerPodConfig,
  r: PeerPod,
  ctx: ReconcileContext,
): Promise<void> {
  const size = recordSize(r);
  const started = Date.now();
  let vm;
  try {
    vm = await cloud.createInstance({
      podName: r.metadata.name as string,
      podNamespace: r.metadata.namespace as string,
      sandboxId: r.metadata.uid as string,
      vcpus: size.vcpus,
      memoryMiB: size.memoryMiB,
      ...(size.instanceType ? { instanceType: size.instanceType } : {}),
      tags: spareVmTags(await d.clusterUid(ctx.signal), cfg.metadata.name as string, r),
    });
  } catch (err) {
    d.metrics.operations.inc({ node: d.opts.nodeName, provider: cloud.name, op: 'create', result: 'failed' });
    d.events.warning(
      cfg,
      'PoolVMCreateFailed',
      `node ${d.opts.nodeName}: creating a spare ${cloud.name} VM: ${(err as Error).message}`,
    );
    // The record and whatever the attempt made go; the pool tries again after the controller's backoff.
    await retireSpare(d, cloud, r, 'its create failed', ctx);
    throw err;
  }
  d.metrics.createSeconds.observe({ provider: cloud.name }, (Date.now() - started) / 1000);
  d.metrics.operations.inc({ node: d.opts.nodeName, provider: cloud.name, op: 'create', result: 'ok' });
  try {
    const written = await d.client.patch<PeerPod>(
      PeerPods,
      r.metadata.name as string,
      r.metadata.namespace,
      {
        // No resourceVersion: the PeerPod controller's status writes move it. A record retired meanwhile
        // still has its finalizer, and retiring finds the VM by ID or by the record's tag.
        ...(vm.ips[0] ? { metadata: { annotations: { [PeerPodAnnotations.ip]: vm.ips[0] } } } : {}),
        spec: { instanceID: vm.id, cloudProvider: cloud.name },
      },
      'merge',
      { signal: ctx.signal },
    );
    await waitForCache(d.peerPods.holding(written), written);
  } catch (err) {
    // Gone (its finalizer released: nothing will look for the VM again): the VM must go with it.
    if (!isNotFound(err)) throw err;
    await cloud.deleteInstance(vm.id);
    return;
  }
  ctx.log.info({ record: r.metadata.name, instanceID: vm.id }, 'spare VM ready');
}

async function writePoolStatus(
  d: AdaptorDeps,
  cfg: PeerPodConfig,
  plan: NodePoolPlan,
  ctx: ReconcileContext,
): Promise<void> {
  const capacity = nodeCapacity(d.nodes.get(undefined, d.opts.nodeName), plan.resource);
  const want: PoolNodeStatus = {
    desired: sparesAllowed(plan.sizes.length, capacity, peerPodsOnNode(d)),
    ready: unclaimedLive(d, cfg.metadata.name as string).filter((r) => r.spec?.instanceID).length,
  };
  const have = cfg.status?.pool?.nodes?.[d.opts.nodeName];
  if (have?.desired === want.desired && have?.ready === want.ready) return;
  try {
    await d.client.patch(
      PeerPodConfigs,
      cfg.metadata.name as string,
      cfg.metadata.namespace,
      { status: { pool: { nodes: { [d.opts.nodeName]: want } } } },
      'merge',
      { subresource: 'status', signal: ctx.signal },
    );
  } catch (err) {
    // Status is a report: a refusal (an older Role) must not stop the pool, but is said.
    ctx.log.warn({ err }, `could not write the pool status: ${(err as Error).message}`);
  }
}
