// kube-controller-manager's taint eviction controller (pkg/controller/tainteviction/
// taint_eviction.go): a pod bound to a node with NoExecute taints is deleted at once when some
// taint is not tolerated, after the smallest tolerationSeconds of the tolerations used when all
// are (counted from when the controller first saw it so), and never when they tolerate forever.
// A taint that goes away in time cancels the eviction. Evicting writes the TaintManagerEviction
// event, the DisruptionTarget condition (reason DeletionByTaintManager), then a plain delete, so
// the pod's grace period applies.
import { objectReference } from '../../../apimachinery/events/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import type { Change, Storage, Watcher } from '../../storage/storage.ts';
import { EventRecorder } from '../events.ts';
import { tolerates, type Taint, type Toleration } from '../scheduler/predicates.ts';

const COMPONENT = 'taint-eviction-controller';
const ctx = internalContext(COMPONENT);
const PODS = '/core/pods/';
const NODES = '/core/nodes/';

interface TolerationWithSeconds extends Toleration {
  tolerationSeconds?: number;
}

/**
 * How long a pod may stay on a node with these NoExecute taints: 0 when one is not tolerated,
 * undefined when every matching toleration lasts forever (getMinTolerationTime).
 */
export function evictionDelayMs(taints: Taint[], tolerations: TolerationWithSeconds[]): number | undefined {
  let min: number | undefined;
  for (const taint of taints) {
    const used = tolerations.find((t) => tolerates(t, taint));
    if (!used) return 0;
    if (typeof used.tolerationSeconds !== 'number') continue;
    const ms = Math.max(0, used.tolerationSeconds) * 1000;
    min = min === undefined ? ms : Math.min(min, ms);
  }
  return min;
}

interface Scheduled {
  createdAt: number;
  due: number;
  timer: NodeJS.Timeout;
}

export class TaintEvictionController {
  private readonly scheduled = new Map<string, Scheduled>();
  /** NoExecute taints per node as last seen, so that heartbeats do not rescan its pods. */
  private readonly nodeTaints = new Map<string, string>();
  /** Nodes with a NoExecute taint now: while there are none, pod writes need no parse at all. */
  private readonly tainted = new Set<string>();
  private readonly watchers: Watcher[] = [];
  private readonly events: EventRecorder;
  private readonly podsDef: ResourceDef;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    catalog: ResourceCatalog,
  ) {
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
    this.events = new EventRecorder(store, catalog, COMPONENT);
  }

  start(): void {
    const rev = this.storage.currentRevision();
    for (const n of this.storage.list(NODES)) {
      const taints = JSON.stringify(noExecuteTaints(n.json));
      this.nodeTaints.set(n.key.slice(NODES.length), taints);
      if (taints !== '[]') this.tainted.add(n.key.slice(NODES.length));
    }
    for (const p of this.storage.list(PODS)) this.processPod(p.key, p.json);
    this.watchers.push(this.storage.watch(NODES, rev, (c) => this.onNode(c)));
    this.watchers.push(this.storage.watch(PODS, rev, (c) => this.onPod(c)));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.stop();
    for (const s of this.scheduled.values()) clearTimeout(s.timer);
    this.scheduled.clear();
  }

  private onNode(c: Change): void {
    const name = c.key.slice(NODES.length);
    const taints = c.type === 'DELETED' ? '' : JSON.stringify(noExecuteTaints(c.json));
    if ((this.nodeTaints.get(name) ?? '[]') === taints) return;
    if (c.type === 'DELETED') this.nodeTaints.delete(name);
    else this.nodeTaints.set(name, taints);
    if (taints && taints !== '[]') this.tainted.add(name);
    else this.tainted.delete(name);
    const bound = `"nodeName":"${name}"`;
    for (const p of this.storage.list(PODS)) if (p.json.includes(bound)) this.processPod(p.key, p.json);
  }

  private onPod(c: Change): void {
    if (c.type === 'DELETED') this.cancel(c.key);
    else this.processPod(c.key, c.json);
  }

  private processPod(key: string, json: string): void {
    if (this.stopped) return;
    if (this.tainted.size === 0 && !this.scheduled.has(key)) return;
    const pod = JSON.parse(json) as JsonObject;
    const spec = (pod.spec ?? {}) as { nodeName?: string; tolerations?: TolerationWithSeconds[] };
    if (!spec.nodeName || (pod.metadata as ObjectMeta).deletionTimestamp) return this.cancel(key);
    const node = this.storage.get(`${NODES}${spec.nodeName}`);
    const noExecute = node ? noExecuteTaints(node.json) : [];
    const delay = noExecute.length > 0 ? evictionDelayMs(noExecute, spec.tolerations ?? []) : undefined;
    if (delay === undefined) return this.cancel(key);
    const now = Date.now();
    const existing = this.scheduled.get(key);
    const createdAt = existing?.createdAt ?? now;
    const due = createdAt + delay;
    if (existing && existing.due <= due) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => void this.evict(key), Math.max(0, due - now));
    timer.unref();
    this.scheduled.set(key, { createdAt, due, timer });
  }

  private cancel(key: string): void {
    const s = this.scheduled.get(key);
    if (!s) return;
    clearTimeout(s.timer);
    this.scheduled.delete(key);
  }

  private async evict(key: string): Promise<void> {
    this.scheduled.delete(key);
    const stored = this.storage.get(key);
    if (!stored || this.stopped) return;
    const pod = JSON.parse(stored.json) as JsonObject;
    const meta = pod.metadata as ObjectMeta;
    if (meta.deletionTimestamp) return;
    try {
      await this.events.record(
        objectReference({ apiVersion: 'v1', kind: 'Pod', metadata: meta }),
        'Normal',
        'TaintManagerEviction',
        `Marking for deletion Pod ${meta.namespace}/${meta.name}`,
      );
      await this.store.updateWith(
        this.podsDef,
        meta.namespace,
        meta.name!,
        ctx,
        (obj) => (addDisruptionTarget(obj, formatTime(new Date())) ? obj : undefined),
        'status',
      );
      await this.store.delete(this.podsDef, meta.namespace, meta.name!, {}, ctx);
    } catch (e) {
      if ((e as { code?: number }).code === 404) return;
      console.error(`peerpods ${COMPONENT}: ${key}: ${(e as Error).message}`);
      // Try again shortly, as the controller's work queue would.
      const timer = setTimeout(() => {
        const again = this.storage.get(key);
        if (again) this.processPod(key, again.json);
      }, 1000);
      timer.unref();
    }
  }
}

function noExecuteTaints(nodeJson: string): Taint[] {
  if (!nodeJson.includes('"NoExecute"')) return [];
  const spec = ((JSON.parse(nodeJson) as JsonObject).spec ?? {}) as { taints?: Taint[] };
  return (spec.taints ?? [])
    .filter((t) => t.effect === 'NoExecute')
    .map((t) => ({ key: t.key, value: t.value, effect: t.effect }));
}

/** The condition taint eviction adds before deleting; false when the pod already carries it. */
function addDisruptionTarget(pod: JsonObject, now: string): boolean {
  const status = (pod.status ?? {}) as JsonObject;
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as JsonObject[];
  const next = {
    type: 'DisruptionTarget',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
    reason: 'DeletionByTaintManager',
    message: 'Taint manager: deleting due to NoExecute taint',
  };
  const old = conditions.find((c) => c.type === 'DisruptionTarget');
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message) return false;
  status.conditions = [...conditions.filter((c) => c.type !== 'DisruptionTarget'), next];
  pod.status = status;
  return true;
}
