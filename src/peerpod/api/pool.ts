// The warm VM pool (CAA#1317: a peer pod's start is dominated by VM create and boot). A
// PeerPodConfig's `spec.pool` asks each node's adaptor to keep running spare VMs; a peer pod whose
// size fits one takes it instead of waiting for a new VM.
//
// A spare is recorded by a pool PeerPod in the config's namespace — never in memory, so a restarted
// adaptor adopts the spares it made: label `peerpods.io/pool` (the config's name), annotation
// `peerpods.io/node`, `peer.pod/finalizer`, and a non-controller owner reference to the
// PeerPodConfig (deleting the config lets the garbage collector delete the records, and the
// finalizer makes the VMs go with them). The record is written before the VM, which is named after
// the record (`podvm-<record>-<uid[:8]>`), so the orphan sweep can tell a spare being made.
// Claiming is two writes, each safe to die after: the record is marked `claimed-by` the pod (a
// write carrying the record's resourceVersion, so two pods never get one VM), then the pod's PeerPod
// is created naming the VM (after the pod's Running status); only after that the record goes,
// without its VM. A claim whose pod left before its PeerPod was written takes its VM along.
import type { KubeObject } from '../../runtime/index.ts';
import { generateInstanceName } from '../providers/index.ts';
import type { PeerPod } from './peerpod.ts';
import { ext } from './schema-ext.ts';
import type { ExtSchema } from './schema-ext.ts';

/** Labels a pool record with the PeerPodConfig whose pool it belongs to. */
export const POOL_LABEL = 'peerpods.io/pool';
/** On a pool record: `<namespace>/<name>/<uid>` of the pod that claimed it. */
export const POOL_CLAIMED_BY_ANNOTATION = 'peerpods.io/pool-claimed-by';
/** On a pod's PeerPod: the pool record its VM came from (the VM was a warm spare). */
export const POOL_CLAIMED_FROM_ANNOTATION = 'peerpods.io/pool-claimed-from';
/** On a pool record: the size it was made for (`<vCPUs>/<MiB>/<instanceType>`, see poolSizeKey). */
export const POOL_SIZE_ANNOTATION = 'peerpods.io/pool-size';

/** Spare VMs made at once per node when the pool refills (`spec.pool.maxConcurrentCreates`). */
export const DEFAULT_POOL_MAX_CONCURRENT_CREATES = 2;
/** Largest accepted pool size: far above any node's capacity. */
const MAX_POOL_SIZE = 10_000;

/** The shape `spec.pool` takes (CRD schema below, defaults above, documented in the README). */
export interface PoolSpec {
  /** Spare VMs for the whole cluster, spread over the config's nodes like `limit`. Exclusive with sizePerNode. */
  size?: number;
  /** Spare VMs on each node. Exclusive with size. */
  sizePerNode?: number;
  /** Sizes to keep; spares are assigned to them in turn (spare i gets vmSizes[i mod n]). Default: one provider-default size. */
  vmSizes?: PoolVmSize[];
  /** A spare older than this (Go duration: `30m`, `2h`) is replaced. Default: kept until claimed. */
  maxAge?: string;
  /** Spares made at once per node while refilling. Default 2. */
  maxConcurrentCreates?: number;
}

export interface PoolVmSize {
  /** Omitted: the provider's default. */
  vcpus?: number;
  /** Whole Mi or Gi (`512Mi`, `2Gi`); omitted: the provider's default. */
  memory?: string;
  /** A cloud machine type; a pod fits only when it names the same one. */
  instanceType?: string;
}

/** A pool size as the adaptor compares it with a pod's (0: the provider's default). */
export interface PoolSize {
  vcpus: number;
  memoryMiB: number;
  instanceType?: string;
}

export const poolSpecSchema = ext<PoolSpec>({
  type: 'object',
  description:
    'A warm pool: running spare VMs each node keeps for peer pods of this config (CAA#1317). Set size or ' +
    'sizePerNode. Spares count against the node resource: a node never runs more VMs than it advertises.',
  properties: {
    size: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_POOL_SIZE,
      description: 'Spare VMs for the whole cluster, spread over the nodes like limit. Exclusive with sizePerNode.',
    } as ExtSchema,
    sizePerNode: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_POOL_SIZE,
      description: 'Spare VMs on each selected node. Exclusive with size.',
    } as ExtSchema,
    vmSizes: {
      type: 'array',
      maxItems: 16,
      description:
        'VM sizes to keep warm, assigned to the spares in turn; a pod takes the smallest spare that fits it ' +
        '(vCPUs and memory at least its own, the same instanceType). Default: one spare size, the provider default.',
      items: {
        type: 'object',
        properties: {
          vcpus: { type: 'integer', minimum: 1, maximum: 1_000_000 } as ExtSchema,
          memory: { type: 'string', pattern: '^[1-9][0-9]{0,6}(Mi|Gi)$' } as ExtSchema,
          instanceType: { type: 'string' },
        },
      },
    } as ExtSchema,
    maxAge: {
      type: 'string',
      pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
      description: 'A spare older than this (Go duration, e.g. 30m) is replaced by a new one. Default: no limit.',
    } as ExtSchema,
    maxConcurrentCreates: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Spares each node makes at once while refilling. Default 2.',
    } as ExtSchema,
  },
  'x-kubernetes-validations': [
    {
      rule: '!(has(self.size) && has(self.sizePerNode))',
      message: 'size and sizePerNode are exclusive: set one of them',
      reason: 'FieldValueForbidden',
      fieldPath: '.sizePerNode',
    },
    {
      rule: 'has(self.size) || has(self.sizePerNode)',
      message: 'set size (spare VMs for the whole cluster) or sizePerNode (spare VMs per node)',
      reason: 'FieldValueRequired',
      fieldPath: '.size',
    },
  ],
});

const poolNodeStatusSchema: ExtSchema = {
  type: 'object',
  properties: {
    desired: {
      type: 'integer',
      minimum: 0,
      description: 'Spares wanted: the share of the node, less what its pods use of its capacity.',
    } as ExtSchema,
    ready: { type: 'integer', minimum: 0, description: 'Spares running and not claimed.' } as ExtSchema,
  },
};

/** Each node's adaptor writes its own entry (a merge patch of one key), so nodes never overwrite each other. */
export const poolStatusSchema = ext<{ nodes?: Record<string, PoolNodeStatus> }>({
  type: 'object',
  description: 'The warm pool on each node, each written by the adaptor of that node.',
  properties: {
    nodes: { type: 'object', additionalProperties: poolNodeStatusSchema } as ExtSchema,
  },
});

export interface PoolNodeStatus {
  desired?: number;
  ready?: number;
}

/** MiB of a `memory` the schema accepted; 0 when omitted. */
export function poolMemoryMiB(memory: string | undefined): number {
  if (!memory) return 0;
  const n = Number.parseInt(memory, 10);
  return memory.endsWith('Gi') ? n * 1024 : n;
}

/** The sizes of a pool spec, defaulted. */
export function poolSizes(spec: PoolSpec): PoolSize[] {
  const sizes = spec.vmSizes?.length ? spec.vmSizes : [{}];
  return sizes.map((v) => ({
    vcpus: v.vcpus ?? 0,
    memoryMiB: poolMemoryMiB(v.memory),
    ...(v.instanceType ? { instanceType: v.instanceType } : {}),
  }));
}

export function poolSizeKey(size: PoolSize): string {
  return `${size.vcpus}/${size.memoryMiB}/${size.instanceType ?? ''}`;
}

export function parsePoolSizeKey(key: string | undefined): PoolSize | undefined {
  const m = /^(\d+)\/(\d+)\/(.*)$/.exec(key ?? '');
  if (!m) return undefined;
  return { vcpus: Number(m[1]), memoryMiB: Number(m[2]), ...(m[3] ? { instanceType: m[3] } : {}) };
}

/**
 * Whether a pod asking for `want` may run on a spare of `have`: a part left to the provider's default
 * fits only a spare made with the default; a stated part fits a stated part at least as large.
 */
export function poolSizeFits(want: PoolSize, have: PoolSize): boolean {
  const part = (w: number, h: number): boolean => (w === 0 ? h === 0 : h >= w);
  return (
    (want.instanceType ?? '') === (have.instanceType ?? '') &&
    part(want.vcpus, have.vcpus) &&
    part(want.memoryMiB, have.memoryMiB)
  );
}

/** Whether a PeerPod records a pool spare (claimed or not) rather than a pod's VM. */
export function isPoolRecord(pp: KubeObject): boolean {
  return pp.metadata.labels?.[POOL_LABEL] !== undefined;
}

/** The pod a pool record is being handed to, if any. */
export function poolClaimOf(pp: KubeObject): { namespace: string; name: string; uid: string } | undefined {
  const raw = pp.metadata.annotations?.[POOL_CLAIMED_BY_ANNOTATION];
  const m = /^([^/]+)\/([^/]+)\/(.+)$/.exec(raw ?? '');
  return m ? { namespace: m[1], name: m[2], uid: m[3] } : undefined;
}

/**
 * The name the VM of a PeerPod whose create may be in progress gets: a pod's is named after the pod
 * and its UID (the adaptor's sandbox ID), a spare after its pool record and the record's UID.
 */
export function pendingVmName(pp: PeerPod, owner: { name: string; uid: string } | undefined): string | undefined {
  if (isPoolRecord(pp)) return generateInstanceName(pp.metadata.name as string, pp.metadata.uid as string);
  return owner ? generateInstanceName(owner.name, owner.uid) : undefined;
}
