// What the warm pool of this node should hold, from the PeerPodConfig and the Node: pure, so the
// arithmetic is tested on its own.
//
// Capacity: the node advertises `kata.peerpods.io/vm` (the config's resource) and the scheduler puts
// at most that many peer pods on it. The pool takes only what those pods leave: spares ≤ capacity −
// peer pods on the node, so pods + spares never exceed what the node (and the provider behind it)
// holds. A claimed spare turns into the pod's VM, so a claim changes nothing in that sum; a cold
// start on a full node first retires a spare (room.ts). The scheduler is not told about the pool:
// spares are held for pods, not against them.
import { parseDuration } from '../../../apimachinery/index.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import { DEFAULT_POOL_MAX_CONCURRENT_CREATES, poolSizes } from '../../api/index.ts';
import type { PeerPodConfig, PoolSize } from '../../api/index.ts';
import { spreadVms } from '../../controllers/peerpodconfig/spread.ts';
import { DEFAULT_EXTENDED_RESOURCE } from '../../webhook/defaults.ts';

export interface NodePoolPlan {
  /** One entry per spare this node should keep (before capacity). */
  sizes: PoolSize[];
  maxAgeMs: number | undefined;
  maxConcurrentCreates: number;
  /** The node resource whose capacity bounds pods plus spares. */
  resource: string;
}

/**
 * The config whose pool this adaptor keeps: the oldest live one of its RuntimeClass (the one the
 * PeerPodConfig controller grants it to). None, or one being deleted: no pool.
 */
export function poolConfigFor(
  configs: readonly PeerPodConfig[],
  runtimeClassName: string,
  defaultRuntimeClass: string,
): PeerPodConfig | undefined {
  const mine = configs
    .filter((c) => (c.spec?.runtimeClassName || defaultRuntimeClass) === runtimeClassName)
    .sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)))[0];
  return mine && !mine.metadata.deletionTimestamp && mine.spec.pool ? mine : undefined;
}

/** This node's share of the config's pool: `sizePerNode`, or `size` spread over the config's nodes like `limit`. */
export function nodePlan(cfg: PeerPodConfig, nodeName: string): NodePoolPlan {
  const pool = cfg.spec.pool ?? {};
  let share: number;
  if (pool.sizePerNode !== undefined) share = pool.sizePerNode;
  else {
    const nodes = (cfg.status?.allocation ?? []).map((a) => a.node);
    share = spreadVms(nodes, { limit: pool.size ?? 0 }).get(nodeName) ?? 0;
  }
  const kinds = poolSizes(pool);
  const maxAgeMs = pool.maxAge ? parseDuration(pool.maxAge) : undefined;
  return {
    sizes: Array.from({ length: share }, (_, i) => kinds[i % kinds.length]),
    maxAgeMs: maxAgeMs && maxAgeMs > 0 ? maxAgeMs : undefined,
    maxConcurrentCreates: pool.maxConcurrentCreates ?? DEFAULT_POOL_MAX_CONCURRENT_CREATES,
    resource: cfg.spec.extendedResource || DEFAULT_EXTENDED_RESOURCE,
  };
}

/** The node's advertised capacity of `resource`; undefined when it advertises none (nothing bounds the pool). */
export function nodeCapacity(node: KubeObject | undefined, resource: string): number | undefined {
  const raw = (node?.status as { capacity?: Record<string, string> } | undefined)?.capacity?.[resource];
  if (raw === undefined) return undefined;
  const n = Number.parseInt(raw, 10);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** How many spares may run: the plan, bounded by the capacity the node's peer pods leave. */
export function sparesAllowed(planned: number, capacity: number | undefined, podsOnNode: number): number {
  if (capacity === undefined) return planned;
  return Math.max(0, Math.min(planned, capacity - podsOnNode));
}
