// A stable small integer per node ID, kept in status.kvm.nodeIndexes. It only names the node's
// iSCSI initiator (iqn...:giantswarm-<id>-<role>-<idx>), which must stay the same for the node's
// lifetime and must not be shared by two live VMs.
import { patchStatusFrom } from '../../../runtime/index.ts';
import type { HandlerContext, ResourceHandler } from '../../../runtime/index.ts';
import { KVMConfigs } from '../../api/kvmconfig.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNodes, specProblem } from '../../key.ts';
import { sameJson } from './meta-compare.ts';

/**
 * The index map for `nodeIds`: IDs that are gone are dropped, kept IDs keep their index, and each
 * new ID (in `nodeIds` order) gets the lowest integer ≥ 1 that is free, holes first ([1,2,4] → 3).
 *
 * As upstream, an index freed by this very call is not handed out by it: it is still counted as
 * taken, and becomes free for later calls. A node replaced in one edit (w1 out, w3 in) therefore
 * gets a fresh index while w1's VM may still be draining under the old iSCSI name; the freed index
 * goes to a node added later.
 *
 * A stored entry that is not an integer ≥ 1, or that repeats an index an earlier node (in
 * `nodeIds` order) holds, is treated as missing: two VMs must never share an initiator name.
 */
export function allocateNodeIndexes(current: Record<string, number>, nodeIds: string[]): Record<string, number> {
  const stored = new Map(Object.entries(current));
  const taken = new Set([...stored.values()]);
  const next = new Map<string, number>();
  const held = new Set<number>();
  for (const id of nodeIds) {
    const idx = stored.get(id);
    if (next.has(id) || idx === undefined || !Number.isInteger(idx) || idx < 1 || held.has(idx)) continue;
    next.set(id, idx);
    held.add(idx);
  }
  let candidate = 1;
  for (const id of nodeIds) {
    if (next.has(id)) continue;
    while (taken.has(candidate) || held.has(candidate)) candidate++;
    next.set(id, candidate);
    held.add(candidate);
  }
  // Map order is insertion order; emit in nodeIds order so equal maps serialise equally.
  return Object.fromEntries(
    nodeIds.filter((id, i) => nodeIds.indexOf(id) === i).map((id) => [id, next.get(id) as number]),
  );
}

export function nodeIndexStatusHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  return {
    name: 'nodeindexstatus',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      // The status handler stops the chain on an invalid spec; this guard only keeps a broken
      // spec (duplicate IDs) from ever reaching the allocator if the chain is assembled otherwise.
      if (specProblem(c)) return;
      const current = c.status?.kvm?.nodeIndexes ?? {};
      const next = allocateNodeIndexes(
        current,
        clusterNodes(c).map((n) => n.id),
      );
      if (sameJson(current, next)) return;
      const after: KVMConfig = { ...c, status: { ...c.status, kvm: { ...c.status?.kvm, nodeIndexes: next } } };
      // Optimistic lock: an allocation computed from a stale map could hand out a taken index.
      await patchStatusFrom(deps.client, KVMConfigs, c, after, { optimisticLock: true, signal: ctx.signal });
      ctx.log.info({ nodeIndexes: next }, 'node indexes updated');
      ctx.cancelReconciliation('node indexes updated; the write brings the next loop');
    },
    async ensureDeleted(): Promise<void> {},
  };
}
