// How many pod VMs each selected node advertises. Pure, so the arithmetic is tested on its own.
import type { KubeObject } from '../../../runtime/index.ts';

/** True when every `selector` label is on `node` with the same value (a nodeSelector's semantics). */
export function matchesSelector(node: KubeObject, selector: Readonly<Record<string, string>>): boolean {
  const labels = node.metadata.labels ?? {};
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/**
 * `limit` VMs spread over `nodes` as evenly as possible; the remainder goes one each to the first
 * nodes in name order, so the result depends only on the set of names (never on list order), and no
 * VM is dropped. `perNode` instead gives each node the same count.
 */
export function spreadVms(
  nodes: readonly string[],
  quota: { limit: number } | { perNode: number },
): Map<string, number> {
  const sorted = [...new Set(nodes)].sort();
  const out = new Map<string, number>();
  if ('perNode' in quota) {
    for (const n of sorted) out.set(n, quota.perNode);
    return out;
  }
  if (sorted.length === 0) return out;
  const base = Math.floor(quota.limit / sorted.length);
  const extra = quota.limit % sorted.length;
  sorted.forEach((n, i) => out.set(n, base + (i < extra ? 1 : 0)));
  return out;
}
