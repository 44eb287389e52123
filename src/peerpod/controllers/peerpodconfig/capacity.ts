// Reconciles the extended resource on nodes with a PeerPodConfig: the selected nodes get their
// share, nodes we claimed that are no longer selected lose it. One failing node does not stop the
// others; failures are returned so the caller reports them and retries.
import type { KubeClient, Recorder } from '../../../runtime/index.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { DEFAULT_NODE_SELECTOR, parseLimit } from '../../api/peerpodconfig.ts';
import { advertise, ownerKey, ownerOf, withdraw } from './nodes.ts';
import type { NodeObject } from './nodes.ts';
import type { PeerPodConfigMetrics } from './metrics.ts';
import { matchesSelector, spreadVms } from './spread.ts';
import { bindingOf, claimAnnotation } from './binding.ts';
import type { BindingDefaults } from './binding.ts';

/** The resource a config advertises and the node annotation that records its claim. */
export function resourceOf(
  deps: Pick<CapacityDeps, 'defaults'>,
  cfg: PeerPodConfig,
): { resource: string; claim: string } {
  const resource = bindingOf(cfg, deps.defaults).extendedResource;
  return { resource, claim: claimAnnotation(resource, deps.defaults) };
}

export interface CapacityResult {
  allocation: Array<{ node: string; vms: number }>;
  /** VMs the spec allows on the eligible nodes. */
  configured: number;
  /** VMs advertised: `configured`, or the provider's hold when smaller. */
  effective: number;
  /** "node: message" per failed node. */
  failures: string[];
  /** Nodes claimed by another PeerPodConfig and so left alone. */
  contested: string[];
  changed: string[];
}

export interface CapacityDeps {
  client: KubeClient;
  nodes: () => NodeObject[];
  /** Whether a PeerPodConfig `namespace/name` still exists (a claim by a deleted one is void). */
  configExists: (key: string) => boolean;
  /** The default binding; a config naming its own RuntimeClass or resource overrides it (binding.ts). */
  defaults: BindingDefaults;
  metrics: PeerPodConfigMetrics;
  events: Recorder;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `hold`: the VMs the provider can hold in all (undefined: unknown, the spec alone decides). */
export async function syncCapacity(
  deps: CapacityDeps,
  cfg: PeerPodConfig,
  signal: AbortSignal,
  hold?: number,
): Promise<CapacityResult> {
  const me = ownerKey(cfg);
  const { resource, claim } = resourceOf(deps, cfg);
  const selector = cfg.spec.nodeSelector ?? DEFAULT_NODE_SELECTOR;
  const all = deps.nodes();
  const contested: string[] = [];
  const eligible = all.filter((n) => {
    if (n.metadata.deletionTimestamp || !matchesSelector(n, selector)) return false;
    const owner = ownerOf(n, claim);
    if (owner && owner !== me && deps.configExists(owner)) {
      contested.push(n.metadata.name as string);
      return false;
    }
    return true;
  });
  const limit = parseLimit(cfg.spec.limit);
  const names = eligible.map((n) => n.metadata.name as string);
  let shares = spreadVms(names, limit !== undefined ? { limit } : { perNode: cfg.spec.limitPerNode ?? 0 });
  const configured = [...shares.values()].reduce((a, b) => a + b, 0);
  // What the provider can hold is spread like a cluster-wide limit, whichever form the spec uses.
  if (hold !== undefined && hold < configured) shares = spreadVms(names, { limit: hold });
  const effective = Math.min(configured, hold ?? configured);
  const failures: string[] = [];
  const changed: string[] = [];
  for (const node of eligible) {
    const name = node.metadata.name as string;
    const vms = shares.get(name) ?? 0;
    try {
      if (await advertise(deps.client, node, resource, vms, me, signal, claim)) changed.push(`${name}=${vms}`);
      deps.metrics.advertised.set({ node: name, resource }, vms);
    } catch (err) {
      failures.push(`${name}: ${errorText(err)}`);
    }
  }
  const chosen = new Set(eligible.map((n) => n.metadata.name as string));
  for (const node of all) {
    const name = node.metadata.name as string;
    if (chosen.has(name) || ownerOf(node, claim) !== me) continue;
    try {
      await withdraw(deps.client, node, resource, signal, claim);
      deps.metrics.advertised.remove({ node: name, resource });
      changed.push(`${name}=removed`);
    } catch (err) {
      failures.push(`${name}: ${errorText(err)}`);
    }
  }
  const allocation = [...shares].map(([node, vms]) => ({ node, vms }));
  return { allocation, configured, effective, failures, contested, changed };
}

/** Takes the resource off every node this PeerPodConfig claimed (on delete). */
export async function releaseAll(deps: CapacityDeps, cfg: PeerPodConfig, signal: AbortSignal): Promise<string[]> {
  const me = ownerKey(cfg);
  const { resource, claim } = resourceOf(deps, cfg);
  const failures: string[] = [];
  for (const node of deps.nodes()) {
    if (ownerOf(node, claim) !== me) continue;
    try {
      await withdraw(deps.client, node, resource, signal, claim);
      deps.metrics.advertised.remove({ node: node.metadata.name as string, resource });
    } catch (err) {
      failures.push(`${node.metadata.name}: ${errorText(err)}`);
    }
  }
  return failures;
}
