// Simulated worker nodes: each is a Node object, a Lease in kube-node-lease renewed on every
// heartbeat (10 s), its status posted when it changes and otherwise every 5 min (kube's
// nodeStatusReportFrequency), and a SimulatedKubelet running the pods bound to it.
//
// The API is the source of truth, so the same node can be driven from code (add/remove/setReady)
// or from any client: a Node created with the label peerpods.io/simulated=true is adopted (its
// missing status filled in), deleting a Node stops its kubelet, and a Ready condition written by
// someone else is kept — heartbeats refresh times only. A stopped kubelet (setKubeletRunning)
// neither heartbeats nor syncs pods until restarted, when it posts its conditions afresh. Pods whose runtimeClassName a node agent
// has claimed (registerNodeAgent) are left to that agent: the kubelet neither starts nor
// finishes them.
import type { Change, Storage, Watcher } from '../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import { internalContext } from '../../registry/context.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { formatMicroTime, formatTime } from '../../../apimachinery/time/index.ts';
import { SimulatedKubelet } from '../../kubelet/kubelet.ts';
import type { ProcessRuntime } from '../../kubelet/process/runtime.ts';
import {
  DEFAULT_NODE_CONFIG,
  leaseObject,
  nodeConditions,
  nodeObject,
  nodeStatus,
  NODE_LEASE_NAMESPACE,
  readyCondition,
  SIMULATED_LABEL,
  type SimulatedNodeConfig,
} from './node-object.ts';

const ctx = internalContext('kubelet');
const PODS = '/core/pods/';
const NODES = '/core/nodes/';
// Few: kubelets share the event loop with the scheduler; binding goes first, pods start behind.
const MAX_CONCURRENT_SYNCS = 8;

export interface NodeAgentEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  pod: JsonObject;
  nodeName: string;
}

/** Told about every change to a claimed pod bound to a simulated node. */
export type NodeAgentHandler = (event: NodeAgentEvent) => void;

export class SimulatedNodes {
  private readonly config: SimulatedNodeConfig;
  private readonly kubelets = new Map<string, SimulatedKubelet>();
  private readonly usedIndexes = new Set<number>();
  /** Indexes promised to nodes being created by add(), until their ADDED event arrives. */
  private readonly reserved = new Map<string, number>();
  private readonly agents = new Map<string, NodeAgentHandler | undefined>();
  /** Nodes whose kubelet was stopped, and the readiness each kubelet reports (setReady). */
  private readonly stoppedKubelets = new Set<string>();
  private readonly readyIntent = new Map<string, boolean>();
  private readonly watchers: Watcher[] = [];
  /** When each node last posted its status (ms); leases are renewed every beat, status less often. */
  private readonly reportedAt = new Map<string, number>();
  private heartbeat?: NodeJS.Timeout;
  private readonly nodesDef: ResourceDef;
  private readonly podsDef: ResourceDef;
  private readonly leasesDef: ResourceDef;
  // Pod syncs: deduplicated per key, never two at once for one key, a bounded number in flight.
  private readonly dirty = new Set<string>();
  private readonly syncing = new Set<string>();
  private readonly idleWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    catalog: ResourceCatalog,
    config: Partial<SimulatedNodeConfig> = {},
    private readonly processes?: ProcessRuntime,
  ) {
    this.config = { ...DEFAULT_NODE_CONFIG, ...config };
    this.nodesDef = catalog.lookup('', 'v1', 'nodes')!;
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
    this.leasesDef = catalog.lookup('coordination.k8s.io', 'v1', 'leases')!;
  }

  start(): void {
    const rev = this.storage.currentRevision();
    for (const n of this.storage.list(NODES))
      this.onNode({ type: 'ADDED', key: n.key, revision: n.revision, json: n.json });
    for (const p of this.storage.list(PODS))
      this.onPod({ type: 'ADDED', key: p.key, revision: p.revision, json: p.json });
    this.watchers.push(this.storage.watch(NODES, rev, (c) => this.onNode(c)));
    this.watchers.push(this.storage.watch(PODS, rev, (c) => this.onPod(c)));
    this.heartbeat = setInterval(() => void this.beat(), this.config.heartbeatIntervalMs);
    this.heartbeat.unref();
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.stop();
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const k of this.kubelets.values()) k.stop();
    this.dirty.clear();
  }

  /** Names of the nodes this control plane simulates. */
  list(): string[] {
    return [...this.kubelets.keys()];
  }

  /** Creates a simulated node (`node-<n>` with the lowest free n by default) and its Lease. */
  async add(name?: string): Promise<string> {
    const index = this.freeIndex(name);
    const nodeName = name ?? `node-${index}`;
    this.reserved.set(nodeName, index);
    let created: JsonObject;
    try {
      created = await this.store.create(
        this.nodesDef,
        undefined,
        nodeObject(nodeName, index, this.config, this.processes?.loopbackBlock),
        ctx,
      );
    } finally {
      this.reserved.delete(nodeName);
    }
    // Create keeps status for Nodes today; write it again in case a strategy drops it.
    if (!(created.status as JsonObject | undefined)?.conditions) await this.writeMissingStatus(nodeName);
    return nodeName;
  }

  /** Deletes the Node; its Lease goes with it (owner reference), its pods through pod GC. */
  async remove(name: string): Promise<void> {
    await this.store.delete(this.nodesDef, undefined, name, { propagationPolicy: 'Background' }, ctx);
  }

  /** Writes the Ready condition as the kubelet would; the lifecycle controller adds the taints. */
  async setReady(name: string, ready: boolean): Promise<void> {
    this.readyIntent.set(name, ready);
    const updated = await this.store.updateWith(
      this.nodesDef,
      undefined,
      name,
      ctx,
      (node) => {
        const status = (node.status ?? {}) as JsonObject;
        const conditions = (status.conditions ?? []) as JsonObject[];
        const old = conditions.find((c) => c.type === 'Ready');
        const next = readyCondition(ready);
        if (old && old.status === next.status) return undefined;
        status.conditions = [...conditions.filter((c) => c.type !== 'Ready'), next];
        node.status = status;
        return node;
      },
      'status',
    );
    if (!updated) throw new Error(`node ${name} not found`);
  }

  async setKubeletRunning(name: string, running: boolean): Promise<void> {
    if (!this.kubelets.has(name)) throw new Error(`node ${name} is not simulated`);
    if (!running) {
      this.stoppedKubelets.add(name);
      return;
    }
    if (!this.stoppedKubelets.delete(name)) return;
    await this.postConditions(name);
    await this.renewLease(name);
    for (const p of this.storage.list(PODS)) if (p.json.includes(`"nodeName":"${name}"`)) this.markDirty(p.key);
  }

  registerNodeAgent(runtimeClassName: string, handler?: NodeAgentHandler): void {
    this.agents.set(runtimeClassName, handler);
    if (!handler) return;
    for (const p of this.storage.list(PODS)) {
      const pod = JSON.parse(p.json) as JsonObject;
      const spec = (pod.spec ?? {}) as JsonObject;
      if (spec.runtimeClassName === runtimeClassName && this.kubelets.has(String(spec.nodeName)))
        handler({ type: 'ADDED', pod, nodeName: String(spec.nodeName) });
    }
  }

  unregisterNodeAgent(runtimeClassName: string): void {
    this.agents.delete(runtimeClassName);
    // Pods it left behind are the kubelet's again.
    for (const p of this.storage.list(PODS)) this.markDirty(p.key);
  }

  /** Resolves once no pod sync is pending (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.dirty.size === 0 && this.syncing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---------------------------------------------------------------- nodes

  private freeIndex(name?: string): number {
    const taken = (i: number): boolean => this.usedIndexes.has(i) || [...this.reserved.values()].includes(i);
    const wanted = name ? /^node-(\d+)$/.exec(name) : null;
    if (wanted && Number(wanted[1]) > 0 && !taken(Number(wanted[1]))) return Number(wanted[1]);
    let i = 1;
    while (taken(i)) i++;
    return i;
  }

  private onNode(c: Change): void {
    const name = c.key.slice(NODES.length);
    if (c.type === 'DELETED') {
      const k = this.kubelets.get(name);
      if (!k) return;
      k.stop();
      this.kubelets.delete(name);
      this.stoppedKubelets.delete(name);
      this.readyIntent.delete(name);
      this.reportedAt.delete(name);
      this.usedIndexes.delete(k.index);
      return;
    }
    if (this.kubelets.has(name)) return;
    const node = JSON.parse(c.json) as JsonObject;
    if (((node.metadata as ObjectMeta).labels ?? {})[SIMULATED_LABEL] !== 'true') return;
    const index = this.reserved.get(name) ?? this.indexFromNode(node) ?? this.freeIndex(name);
    this.usedIndexes.add(index);
    this.kubelets.set(
      name,
      new SimulatedKubelet(
        name,
        index,
        this.store,
        this.podsDef,
        this.config.shutdownMs,
        this.config.crashLoopBackOff,
        this.processes,
      ),
    );
    // Deferred: we are inside the write that created the node.
    setImmediate(() => {
      if (this.stopped || !this.kubelets.has(name)) return;
      void this.writeMissingStatus(name)
        .then(() => this.renewLease(name))
        .catch((e: unknown) => console.error(`peerpods kubelet ${name}: ${(e as Error).message}`));
      for (const p of this.storage.list(PODS)) if (p.json.includes(`"nodeName":"${name}"`)) this.markDirty(p.key);
    });
  }

  /** A node created elsewhere keeps an address we gave it before (restarts with kept storage). */
  private indexFromNode(node: JsonObject): number | undefined {
    const cidr = ((node.spec ?? {}) as { podCIDR?: string }).podCIDR;
    const m = cidr ? /^10\.(\d+)\.(\d+)\.0\/24$/.exec(cidr) : null;
    if (!m) return undefined;
    const index = (Number(m[1]) - 244) * 256 + Number(m[2]);
    return index > 0 && !this.usedIndexes.has(index) ? index : undefined;
  }

  private async writeMissingStatus(name: string): Promise<void> {
    this.reportedAt.set(name, Date.now());
    const k = this.kubelets.get(name);
    const index = k?.index ?? this.freeIndex(name);
    await this.store.updateWith(
      this.nodesDef,
      undefined,
      name,
      ctx,
      (node) => {
        const status = (node.status ?? {}) as JsonObject;
        const full = nodeStatus(name, index, this.config, true, this.processes?.loopbackBlock);
        let changed = false;
        for (const [field, value] of Object.entries(full)) {
          const cur = status[field];
          const empty =
            cur === undefined ||
            cur === null ||
            (Array.isArray(cur) && cur.length === 0) ||
            (typeof cur === 'object' && Object.keys(cur).length === 0) ||
            (field === 'nodeInfo' && !(cur as JsonObject).kubeletVersion) ||
            (field === 'daemonEndpoints' && !((cur as JsonObject).kubeletEndpoint as JsonObject | undefined)?.Port);
          if (empty) {
            status[field] = value;
            changed = true;
          } else if (field === 'capacity' || field === 'allocatable') {
            // A kubelet registering reports its own resources; extended resources someone else
            // advertised first (e.g. kata.peerpods.io/vm) are kept beside them.
            const have = cur as JsonObject;
            for (const [resource, quantity] of Object.entries(value as JsonObject)) {
              if (have[resource] !== undefined) continue;
              have[resource] = quantity;
              changed = true;
            }
          }
        }
        if (!changed) return undefined;
        node.status = status;
        return node;
      },
      'status',
    );
  }

  private async beat(): Promise<void> {
    for (const name of [...this.kubelets.keys()]) {
      if (this.stopped) return;
      if (this.stoppedKubelets.has(name)) continue;
      try {
        await this.renewLease(name);
        if (Date.now() - (this.reportedAt.get(name) ?? 0) >= this.config.statusReportIntervalMs)
          await this.refreshHeartbeat(name);
      } catch (e) {
        console.error(`peerpods kubelet ${name}: heartbeat: ${(e as Error).message}`);
      }
    }
  }

  private async renewLease(name: string): Promise<void> {
    const renewed = await this.store.updateWith(this.leasesDef, NODE_LEASE_NAMESPACE, name, ctx, (lease) => {
      lease.spec = {
        ...((lease.spec ?? {}) as JsonObject),
        holderIdentity: name,
        renewTime: formatMicroTime(new Date()),
      };
      return lease;
    });
    if (renewed) return;
    const node = this.store.getStored(this.nodesDef, undefined, name);
    if (!node) return;
    try {
      await this.store.create(
        this.leasesDef,
        NODE_LEASE_NAMESPACE,
        leaseObject(JSON.parse(node.json) as JsonObject, this.config),
        ctx,
      );
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }

  /** A kubelet starting again reports every condition it owns, replacing what others wrote. */
  private async postConditions(name: string): Promise<void> {
    this.reportedAt.set(name, Date.now());
    const fresh = nodeConditions(this.readyIntent.get(name) ?? true);
    const types = new Set(fresh.map((c) => c.type));
    await this.store.updateWith(
      this.nodesDef,
      undefined,
      name,
      ctx,
      (node) => {
        const status = (node.status ?? {}) as JsonObject;
        const conditions = (status.conditions ?? []) as JsonObject[];
        status.conditions = [...conditions.filter((c) => !types.has(c.type)), ...fresh];
        node.status = status;
        return node;
      },
      'status',
    );
  }

  /** Bumps lastHeartbeatTime on every condition, keeping their status (set by setReady or a client). */
  private async refreshHeartbeat(name: string): Promise<void> {
    this.reportedAt.set(name, Date.now());
    const now = formatTime(new Date());
    await this.store.updateWith(
      this.nodesDef,
      undefined,
      name,
      ctx,
      (node) => {
        const status = (node.status ?? {}) as JsonObject;
        const conditions = (status.conditions ?? []) as JsonObject[];
        if (conditions.length === 0) return undefined;
        status.conditions = conditions.map((c) => ({ ...c, lastHeartbeatTime: now }));
        node.status = status;
        return node;
      },
      'status',
    );
  }

  // ---------------------------------------------------------------- pods

  private onPod(c: Change): void {
    if (c.type === 'DELETED') {
      const pod = JSON.parse(c.json) as JsonObject;
      const spec = (pod.spec ?? {}) as JsonObject;
      const nodeName = String(spec.nodeName ?? '');
      const kubelet = this.kubelets.get(nodeName);
      if (!kubelet) return;
      kubelet.forget(c.key);
      const claimed = typeof spec.runtimeClassName === 'string' ? this.agents.get(spec.runtimeClassName) : undefined;
      claimed?.({ type: 'DELETED', pod, nodeName });
      return;
    }
    // Cheap pre-check: unbound pods (most of the churn while scheduling) are not ours yet.
    if (!c.json.includes('"nodeName"')) return;
    this.markDirty(c.key, c.type);
  }

  private markDirty(key: string, type: 'ADDED' | 'MODIFIED' = 'MODIFIED'): void {
    if (this.stopped) return;
    const stored = this.storage.get(key);
    if (!stored) return;
    const pod = JSON.parse(stored.json) as JsonObject;
    const spec = (pod.spec ?? {}) as JsonObject;
    const nodeName = String(spec.nodeName ?? '');
    if (!this.kubelets.has(nodeName) || this.stoppedKubelets.has(nodeName)) return;
    if (typeof spec.runtimeClassName === 'string' && this.agents.has(spec.runtimeClassName)) {
      this.agents.get(spec.runtimeClassName)?.({ type, pod, nodeName });
      return;
    }
    this.dirty.add(key);
    this.pump();
  }

  private pump(): void {
    for (const key of this.dirty) {
      if (this.syncing.size >= MAX_CONCURRENT_SYNCS) return;
      if (this.syncing.has(key)) continue;
      this.dirty.delete(key);
      this.syncing.add(key);
      void this.syncPod(key)
        .catch((e: unknown) => console.error(`peerpods kubelet: ${key}: ${(e as Error).message}`))
        .finally(() => {
          this.syncing.delete(key);
          this.pump();
          if (this.dirty.size === 0 && this.syncing.size === 0) for (const w of this.idleWaiters.splice(0)) w();
        });
    }
  }

  private async syncPod(key: string): Promise<void> {
    // Let the write that marked it finish first (we are called from inside it).
    await new Promise((r) => setImmediate(r));
    const stored = this.storage.get(key);
    if (!stored || this.stopped) return;
    const pod = JSON.parse(stored.json) as JsonObject;
    const spec = (pod.spec ?? {}) as JsonObject;
    const kubelet = this.kubelets.get(String(spec.nodeName ?? ''));
    if (!kubelet) return;
    if (typeof spec.runtimeClassName === 'string' && this.agents.has(spec.runtimeClassName)) return;
    await kubelet.sync(key, pod);
  }
}
