// Pool records: the PeerPods that stand for this node's spare VMs (see api/pool.ts for their shape
// and why a spare is a PeerPod), and the one way a spare is retired.
import { hasFinalizer, isConflict, isNotFound, removeFinalizer, waitForCache } from '../../../runtime/index.ts';
import type { KubeObject, ReconcileContext } from '../../../runtime/index.ts';
import {
  API_VERSION,
  PEERPOD_FINALIZER,
  POOL_LABEL,
  POOL_SIZE_ANNOTATION,
  PeerPodAnnotations,
  PeerPods,
  formatVmSize,
  isPoolRecord,
  parsePoolSizeKey,
  poolClaimOf,
  poolSizeKey,
} from '../../api/index.ts';
import type { PeerPod, PeerPodConfig, PoolSize } from '../../api/index.ts';
import { CLUSTER_UID_TAG } from '../../providers/index.ts';
import type { CloudProvider, Instance } from '../../providers/index.ts';
import type { AdaptorDeps } from '../deps.ts';
import { DEFAULT_RUNTIME_CLASS } from '../defaults.ts';
import { isOnNode } from '../peerpod-record.ts';
import { nodeLabels } from '../node-peerpods.ts';

/** Tag on a spare VM: the UID of its pool record, so a VM whose ID was never recorded is still found. */
export const POOL_RECORD_TAG = 'peerpods-pool-record';
/** Tag on a spare VM: the PeerPodConfig whose pool made it. */
export const POOL_TAG = 'peerpods-pool';

/**
 * This adaptor's pool records on this node, from the cache: those of a config of its RuntimeClass, or
 * of a config that is gone. Another provider's adaptor on the same node keeps its own.
 */
export function poolRecordsOn(d: AdaptorDeps): PeerPod[] {
  return d.peerPods
    .list(d.opts.namespace)
    .filter((pp) => isPoolRecord(pp) && isOnNode(pp, d.opts.nodeName) && isOurs(d, pp.metadata.labels?.[POOL_LABEL]));
}

function isOurs(d: AdaptorDeps, cfgName: string | undefined): boolean {
  const cfg = cfgName ? d.poolConfigs?.get(d.opts.namespace, cfgName) : undefined;
  return !cfg || (cfg.spec?.runtimeClassName || DEFAULT_RUNTIME_CLASS) === d.opts.runtimeClassName;
}

/** A spare a pod may take: live, its VM recorded, nobody's claim on it. */
export function isSpare(pp: PeerPod): boolean {
  return !pp.metadata.deletionTimestamp && !!pp.spec?.instanceID && !poolClaimOf(pp);
}

/** Records whose VM counts as a spare against the node's capacity: everything not handed to a pod. */
export function holdsSpareVm(pp: PeerPod): boolean {
  return !poolClaimOf(pp);
}

export function recordSize(pp: PeerPod): PoolSize {
  return parsePoolSizeKey(pp.metadata.annotations?.[POOL_SIZE_ANNOTATION]) ?? { vcpus: 0, memoryMiB: 0 };
}

export function newPoolRecord(cfg: PeerPodConfig, nodeName: string, provider: string, size: PoolSize): PeerPod {
  // generateName: spares of one size are interchangeable, and the VM is named after the record's UID.
  const node = nodeName
    .toLowerCase()
    .slice(0, 40)
    .replace(/[^a-z0-9-]/g, '-');
  return {
    apiVersion: API_VERSION,
    kind: 'PeerPod',
    metadata: {
      generateName: `pool-${node}-`,
      namespace: cfg.metadata.namespace,
      labels: { [POOL_LABEL]: cfg.metadata.name as string, ...nodeLabels(nodeName) },
      annotations: {
        [PeerPodAnnotations.node]: nodeName,
        [PeerPodAnnotations.vmSize]: formatVmSize(size),
        [POOL_SIZE_ANNOTATION]: poolSizeKey(size),
      },
      finalizers: [PEERPOD_FINALIZER],
      // Not the controller: the PeerPod controller's duplicate rule compares controller owners.
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'PeerPodConfig',
          name: cfg.metadata.name as string,
          uid: cfg.metadata.uid as string,
        },
      ],
    },
    spec: { cloudProvider: provider },
  };
}

/** The spare's VM as the pod path needs it, from the record alone (no provider call on the warm path). */
export function recordedInstance(pp: PeerPod): Instance {
  const ip = pp.metadata.annotations?.[PeerPodAnnotations.ip];
  return {
    id: pp.spec?.instanceID ?? '',
    name: '',
    ips: ip ? [ip] : [],
    tags: {},
    createdAt: new Date(pp.metadata.creationTimestamp ?? 0),
  };
}

export function spareVmTags(clusterUid: string, cfgName: string, record: KubeObject): Record<string, string> {
  return { [CLUSTER_UID_TAG]: clusterUid, [POOL_TAG]: cfgName, [POOL_RECORD_TAG]: record.metadata.uid as string };
}

/**
 * Retires an unclaimed spare: the record is marked deleted first (its finalizer keeps it), then its
 * VM goes (by ID, or by the record's tag when the ID was never written), then the finalizer. Killed
 * at any point, the next pool reconcile — or the PeerPod controller, which holds the same finalizer
 * protocol — finishes it; nothing is left that no record leads to. A claimed record is retired only
 * when its claim was abandoned (`abandonedClaim`: the claimant left before its PeerPod named the VM).
 */
export async function retireSpare(
  d: AdaptorDeps,
  cloud: CloudProvider,
  pp: PeerPod,
  why: string,
  ctx: ReconcileContext,
  opts: { abandonedClaim?: boolean } = {},
): Promise<void> {
  if (poolClaimOf(pp) && !opts.abandonedClaim) return;
  const name = pp.metadata.name as string;
  if (!pp.metadata.deletionTimestamp) {
    try {
      await d.client.delete(PeerPods, name, pp.metadata.namespace, {
        preconditions: { uid: pp.metadata.uid as string },
        signal: ctx.signal,
      });
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }
  if (hasFinalizer(pp, PEERPOD_FINALIZER)) {
    const ids = new Set(pp.spec?.instanceID ? [pp.spec.instanceID] : []);
    if (ids.size === 0) {
      const tags = { [CLUSTER_UID_TAG]: await d.clusterUid(ctx.signal), [POOL_RECORD_TAG]: pp.metadata.uid as string };
      for (const vm of await cloud.listInstances(tags)) ids.add(vm.id);
    }
    for (const id of ids) {
      await cloud.deleteInstance(id);
      d.metrics.operations.inc({ node: d.opts.nodeName, provider: cloud.name, op: 'delete', result: 'ok' });
    }
    const fresh = await d.client
      .get<PeerPod>(PeerPods, name, pp.metadata.namespace, { signal: ctx.signal })
      .catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    if (fresh) {
      const written = await removeFinalizer(d.client, PeerPods, fresh, PEERPOD_FINALIZER, { signal: ctx.signal });
      await waitForCache(d.peerPods.holding(written), written, { throwOnTimeout: false });
    }
  }
  ctx.log.info({ record: name, instanceID: pp.spec?.instanceID, why }, 'spare VM retired');
}
