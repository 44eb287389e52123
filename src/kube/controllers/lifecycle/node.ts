// The parts of kube-controller-manager's node lifecycle and pod GC controllers a local cluster
// needs: the health monitor (node-health.ts) turns silent nodes Unknown, taint eviction
// (taint-eviction.ts) deletes pods that do not tolerate a NoExecute taint. Condition taints: Ready=False gets node.kubernetes.io/not-ready, Ready=Unknown gets
// node.kubernetes.io/unreachable (NoSchedule and NoExecute each), a cordoned node gets
// node.kubernetes.io/unschedulable:NoSchedule; they go away when the condition does. A node with
// no Ready condition yet is left alone (the scheduler treats it as not ready anyway).
// Pods bound to a node that no longer exists are deleted (pod GC).
// Not done: zone-aware eviction rate limiting (every pod is handled at its own time).
import type { Change, Storage, Watcher } from '../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, type Taint } from '../scheduler/predicates.ts';
import { WorkLoop } from '../work-loop.ts';
import { DEFAULT_NODE_HEALTH, NodeHealthMonitor, type NodeHealthOptions } from './node-health.ts';
import { TaintEvictionController } from './taint-eviction.ts';

const ctx = internalContext('node-lifecycle-controller');
const MANAGED = new Set([TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE]);

interface TaintWithTime extends Taint {
  timeAdded?: string;
}

/** The condition taints `node` should carry, given its Ready condition and spec. */
export function desiredConditionTaints(node: JsonObject): Taint[] {
  const spec = (node.spec ?? {}) as JsonObject;
  const conditions = (((node.status ?? {}) as JsonObject).conditions ?? []) as Array<{
    type?: string;
    status?: string;
  }>;
  const ready = conditions.find((c) => c.type === 'Ready');
  const out: Taint[] = [];
  if (ready?.status === 'False')
    out.push(...['NoSchedule', 'NoExecute'].map((effect) => ({ key: TAINT_NOT_READY, effect })));
  else if (ready && ready.status !== 'True') {
    out.push(...['NoSchedule', 'NoExecute'].map((effect) => ({ key: TAINT_UNREACHABLE, effect })));
  }
  if (spec.unschedulable === true) out.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  return out;
}

export class NodeLifecycleController {
  private readonly loop: WorkLoop;
  private watcher?: Watcher;
  private readonly health: NodeHealthMonitor;
  private readonly eviction: TaintEvictionController;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    private readonly catalog: ResourceCatalog,
    options: Partial<NodeHealthOptions> = {},
  ) {
    this.loop = new WorkLoop('node-lifecycle-controller', (key) => this.process(key));
    this.health = new NodeHealthMonitor(storage, store, catalog, { ...DEFAULT_NODE_HEALTH, ...options });
    this.eviction = new TaintEvictionController(storage, store, catalog);
  }

  start(): void {
    const rev = this.storage.currentRevision();
    for (const n of this.storage.list('/core/nodes/')) this.loop.add(n.key);
    this.watcher = this.storage.watch('/core/', rev, (c) => this.observe(c));
    this.health.start();
    this.eviction.start();
  }

  stop(): void {
    this.watcher?.stop();
    this.loop.stop();
    this.health.stop();
    this.eviction.stop();
  }

  private observe(c: Change): void {
    if (c.key.startsWith('/core/nodes/')) {
      this.loop.add(c.key);
      if (c.type === 'DELETED') this.loop.add(`gc:${c.key.slice('/core/nodes/'.length)}`);
    } else if (c.key.startsWith('/core/pods/') && c.type === 'ADDED' && c.json.includes('"nodeName"')) {
      // A pod created already bound to a missing node (the binding raced a node deletion).
      const nodeName = ((JSON.parse(c.json) as { spec?: { nodeName?: string } }).spec ?? {}).nodeName;
      if (nodeName && !this.storage.get(`/core/nodes/${nodeName}`)) this.loop.addAfter(`gc:${nodeName}`, 1000);
    }
  }

  private async process(key: string): Promise<void> {
    if (key.startsWith('gc:')) return this.collectPods(key.slice(3));
    const stored = this.storage.get(key);
    if (!stored) return;
    const node = JSON.parse(stored.json) as JsonObject;
    const desired = desiredConditionTaints(node);
    const current = (((node.spec ?? {}) as JsonObject).taints ?? []) as unknown as TaintWithTime[];
    const same = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;
    const stale = current.some((t) => MANAGED.has(t.key) && !desired.some((d) => same(d, t)));
    const missing = desired.some((d) => !current.some((t) => same(d, t)));
    if (!stale && !missing) return;
    const def = this.catalog.lookup('', 'v1', 'nodes')!;
    const name = (node.metadata as ObjectMeta).name!;
    await this.store.updateWith(def, undefined, name, ctx, (obj) => {
      const want = desiredConditionTaints(obj);
      const spec = (obj.spec ?? {}) as JsonObject;
      const taints = ((spec.taints ?? []) as unknown as TaintWithTime[]).filter(
        (t) => !MANAGED.has(t.key) || want.some((d) => same(d, t)),
      );
      const now = formatTime(new Date());
      for (const d of want) {
        if (!taints.some((t) => same(d, t))) taints.push(d.effect === 'NoExecute' ? { ...d, timeAdded: now } : d);
      }
      if (taints.length > 0) spec.taints = taints as unknown as JsonObject[];
      else delete spec.taints;
      obj.spec = spec;
      return obj;
    });
  }

  private async collectPods(nodeName: string): Promise<void> {
    if (this.storage.get(`/core/nodes/${nodeName}`)) return;
    const def = this.catalog.lookup('', 'v1', 'pods')!;
    for (const item of this.storage.list('/core/pods/')) {
      const pod = JSON.parse(item.json) as { metadata: ObjectMeta; spec?: { nodeName?: string } };
      if (pod.spec?.nodeName !== nodeName) continue;
      try {
        // The node is gone, so the store deletes without a grace period.
        await this.store.delete(def, pod.metadata.namespace, pod.metadata.name!, { gracePeriodSeconds: 0 }, ctx);
      } catch (e) {
        if ((e as { code?: number }).code !== 404) throw e;
      }
    }
  }
}
