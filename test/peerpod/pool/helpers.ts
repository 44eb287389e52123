// Shared by the warm-pool suites: a PeerPodConfig with a pool, the node capacity the PeerPodConfig
// controller would advertise, and views of the pool records.
import { Nodes } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { POOL_LABEL, PeerPodConfigs, PeerPods } from '../../../src/peerpod/api/index.ts';
import type { PeerPod, PeerPodConfig, PoolSpec } from '../../../src/peerpod/api/index.ts';
import { SETTINGS_NS } from '../adaptor/helpers.ts';
import type { Env } from '../adaptor/helpers.ts';

export const RESOURCE = 'kata.peerpods.io/vm';

export async function createPoolConfig(env: Env, pool: PoolSpec, name = 'pool-config'): Promise<PeerPodConfig> {
  return env.client.create<PeerPodConfig>(PeerPodConfigs, {
    metadata: { name, namespace: SETTINGS_NS },
    spec: { limitPerNode: 4, pool },
  });
}

export async function setPool(env: Env, pool: PoolSpec, name = 'pool-config'): Promise<void> {
  await env.client.patch(PeerPodConfigs, name, SETTINGS_NS, { spec: { pool } }, 'merge');
}

/** What the PeerPodConfig controller does on each node: advertise `vms` of the resource. */
export async function advertise(env: Env, node: string, vms: number): Promise<void> {
  await env.client.patch(
    Nodes,
    node,
    undefined,
    { status: { capacity: { [RESOURCE]: String(vms) }, allocatable: { [RESOURCE]: String(vms) } } },
    'merge',
    { subresource: 'status' },
  );
}

/** Pool records (claimed or not, live or being deleted), optionally of one node. */
export async function poolRecords(env: Env, node?: string): Promise<PeerPod[]> {
  const list = await env.client.list<PeerPod>(PeerPods, { namespace: SETTINGS_NS });
  return list.items.filter(
    (pp) =>
      pp.metadata.labels?.[POOL_LABEL] !== undefined &&
      (node === undefined || pp.metadata.annotations?.['peerpods.io/node'] === node),
  );
}

/** Spares ready to be claimed: recorded VM, no claim, not being deleted. */
export async function readySpares(env: Env, node?: string): Promise<PeerPod[]> {
  return (await poolRecords(env, node)).filter(
    (pp) =>
      pp.spec?.instanceID &&
      !pp.metadata.deletionTimestamp &&
      !pp.metadata.annotations?.['peerpods.io/pool-claimed-by'],
  );
}

export function idsOf(objs: Array<PeerPod | { id: string }>): string[] {
  // Instances carry `id`; PeerPods name theirs in spec.instanceID.
  return objs.map((o) => ('metadata' in o ? ((o as PeerPod).spec?.instanceID ?? '') : (o as { id: string }).id)).sort();
}

export function podAnnotations(vcpus: number, memoryMiB: number): Record<string, string> {
  return {
    'io.katacontainers.config.hypervisor.default_vcpus': String(vcpus),
    'io.katacontainers.config.hypervisor.default_memory': String(memoryMiB),
  };
}

export type { KubeObject };
