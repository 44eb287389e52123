// The node lifecycle controller's health monitor (kube-controller-manager,
// pkg/controller/nodelifecycle/node_lifecycle_controller.go, tryUpdateNodeHealth): every monitor
// period it looks at each Node's Ready heartbeat and its Lease in kube-node-lease, and when
// neither moved for the grace period it sets Ready, MemoryPressure, DiskPressure and PIDPressure
// to Unknown. A node that never posted a Ready condition is judged from its creation time with
// the start-up grace and gets the conditions with reason NodeStatusNeverUpdated; one that stopped
// gets NodeStatusUnknown. Like kube, a renewed Lease alone keeps a node healthy, and the
// controller never sets a condition back to True: the kubelet does when it reports again. The
// taints that follow from the conditions are node.ts's job.
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { formatTime, parseMicroTime } from '../../../apimachinery/time/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { Storage } from '../../storage/storage.ts';

export interface NodeHealthOptions {
  /** --node-monitor-period: how often nodes are checked. Default 5 s. */
  nodeMonitorPeriodMs: number;
  /**
   * --node-monitor-grace-period: silence before a reporting node turns Unknown. Default 50 s, the
   * default since Kubernetes 1.32 (kubernetes/kubernetes#126287; 40 s before), as this server
   * reports 1.33 (src/kube/version.ts).
   */
  nodeMonitorGracePeriodMs: number;
  /** --node-startup-grace-period: time a new node has to post its first status. Default 60 s. */
  nodeStartupGracePeriodMs: number;
}

export const DEFAULT_NODE_HEALTH: NodeHealthOptions = {
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
};

const ctx = internalContext('node-lifecycle-controller');
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
// NodeNetworkUnavailable is left alone: the network plugin owns it.
const CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

interface NodeCondition {
  type?: string;
  status?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What the controller last saw of a node: when it last heard from it, through what. */
interface NodeHealth {
  probeTimestamp: number;
  readyHeartbeat?: string;
  leaseRenewTime: number;
}

export class NodeHealthMonitor {
  private readonly health = new Map<string, NodeHealth>();
  private timer?: NodeJS.Timeout;
  private running = false;
  private readonly nodesDef: ResourceDef;
  private readonly leasesDef: ResourceDef;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    catalog: ResourceCatalog,
    private readonly options: NodeHealthOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.nodesDef = catalog.lookup('', 'v1', 'nodes')!;
    this.leasesDef = catalog.lookup('coordination.k8s.io', 'v1', 'leases')!;
  }

  start(): void {
    this.timer = setInterval(() => void this.monitor(), this.options.nodeMonitorPeriodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One pass over every node (monitorNodeHealth). */
  async monitor(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const seen = new Set<string>();
      for (const item of this.storage.list('/core/nodes/')) {
        const node = JSON.parse(item.json) as JsonObject;
        const name = (node.metadata as ObjectMeta).name!;
        seen.add(name);
        try {
          await this.check(name, node);
        } catch (e) {
          console.error(`peerpods node-lifecycle-controller: ${name}: ${(e as Error).message}`);
        }
      }
      for (const name of this.health.keys()) if (!seen.has(name)) this.health.delete(name);
    } finally {
      this.running = false;
    }
  }

  private async check(name: string, node: JsonObject): Promise<void> {
    const now = this.now();
    const ready = readyConditionOf(node);
    const created = parseMicroTime((node.metadata as ObjectMeta).creationTimestamp) || now;
    const grace = ready ? this.options.nodeMonitorGracePeriodMs : this.options.nodeStartupGracePeriodMs;
    let health = this.health.get(name);
    if (!health) {
      // A node never heard from is timed from its creation; one already reporting from now.
      health = { probeTimestamp: ready ? now : created, readyHeartbeat: ready?.lastHeartbeatTime, leaseRenewTime: 0 };
    } else if (ready && ready.lastHeartbeatTime !== health.readyHeartbeat) {
      health = { ...health, probeTimestamp: now, readyHeartbeat: ready.lastHeartbeatTime };
    }
    const lease = this.store.getStored(this.leasesDef, NODE_LEASE_NAMESPACE, name);
    if (lease) {
      const renewTime = parseMicroTime(
        ((JSON.parse(lease.json) as JsonObject).spec as JsonObject | undefined)?.renewTime as string,
      );
      if (renewTime > health.leaseRenewTime) health = { ...health, leaseRenewTime: renewTime, probeTimestamp: now };
    }
    this.health.set(name, health);
    if (now <= health.probeTimestamp + grace) return;
    if (!needsUnknown(node)) return;
    const written = await this.store.updateWith(
      this.nodesDef,
      undefined,
      name,
      ctx,
      (obj) => (markUnknown(obj, formatTime(now)) ? obj : undefined),
      'status',
    );
    // Our own write keeps lastHeartbeatTime, so it does not count as hearing from the node.
    const after = written ? readyConditionOf(written) : undefined;
    if (after) this.health.set(name, { ...health, readyHeartbeat: after.lastHeartbeatTime });
  }
}

function conditionsOf(node: JsonObject): NodeCondition[] {
  const status = (node.status ?? {}) as JsonObject;
  return Array.isArray(status.conditions) ? (status.conditions as NodeCondition[]) : [];
}

function readyConditionOf(node: JsonObject): NodeCondition | undefined {
  return conditionsOf(node).find((c) => c.type === 'Ready');
}

function needsUnknown(node: JsonObject): boolean {
  const conditions = conditionsOf(node);
  return CONDITION_TYPES.some((type) => conditions.find((c) => c.type === type)?.status !== 'Unknown');
}

/** Sets the four conditions Unknown as tryUpdateNodeHealth does; false when nothing changed. */
export function markUnknown(node: JsonObject, now: string): boolean {
  const status = (node.status ?? {}) as JsonObject;
  const conditions = conditionsOf(node).map((c) => ({ ...c }));
  const created = (node.metadata as ObjectMeta).creationTimestamp ?? now;
  let changed = false;
  for (const type of CONDITION_TYPES) {
    const current = conditions.find((c) => c.type === type);
    if (!current) {
      conditions.push({
        type,
        status: 'Unknown',
        lastHeartbeatTime: created,
        lastTransitionTime: now,
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
      });
      changed = true;
    } else if (current.status !== 'Unknown') {
      current.status = 'Unknown';
      current.reason = 'NodeStatusUnknown';
      current.message = 'Kubelet stopped posting node status.';
      current.lastTransitionTime = now;
      changed = true;
    }
  }
  if (!changed) return false;
  status.conditions = conditions as unknown as JsonObject[];
  node.status = status;
  return true;
}
