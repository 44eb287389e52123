// The built-in scheduler (default-scheduler). It keeps an incremental cache fed by the storage
// change stream: every node's filter inputs and the summed requests of the pods bound to it, so
// one scheduling decision costs one pass over the nodes and no lists.
//
// Placement: the filters of predicates.ts (required inter-pod affinity and anti-affinity in
// interpod.ts), then least-allocated over cpu and memory (non-zero request defaults, as kube
// scores them); ties go round-robin from the node after the last pick, so request-less pods (peer
// pods ask only for kata.peerpods.io/vm) spread evenly.
// A decision is "assumed" at once (counted against the node) and bound through the same path as
// pods/binding; up to MAX_IN_FLIGHT binds run concurrently.
//
// Unschedulable pods get PodScheduled=False/Unschedulable with kube's FitError message and an
// aggregated FailedScheduling Warning Event. They are retried when a node appears or changes in
// a way a filter reads, when capacity is freed or a pod leaves, when the pod's spec changes,
// and — for pods that inter-pod affinity rejected — when a pod lands on a node or a bound pod's
// labels change; never sooner than their backoff (1 s doubling to 10 s), at the latest every
// FLUSH_MS. Namespace label changes (namespaceSelector) are only seen at the flush.
import type { Change, Storage, Watcher } from '../../storage/storage.ts';
import { exponentialDelay } from '../../../apimachinery/backoff.ts';
import { objectReference } from '../../../apimachinery/events/index.ts';
import type { ObjectReference } from '../../../apimachinery/events/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { internalContext } from '../../registry/context.ts';
import type { ObjectStore } from '../../registry/store/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { Subresources } from '../../registry/subresources/index.ts';
import { EventRecorder } from '../events.ts';
import {
  filterNode,
  fitErrorMessage,
  nodeInfoFrom,
  podConstraints,
  scoreNode,
  type NodeInfo,
  type NodeUsage,
} from './predicates.ts';
import { podRequests, type PodRequests } from './resources.ts';
import {
  affinityPodOf,
  interPodFilter,
  INTER_POD_REASONS,
  type AffinityPod,
  type ExistingPod,
  type InterPodFilter,
} from './interpod.ts';

export const SCHEDULER_NAME = 'default-scheduler';
const PODS = '/core/pods/';
const NODES = '/core/nodes/';
const NAMESPACES = '/core/namespaces/';
const MAX_IN_FLIGHT = 64;
const INITIAL_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;
const FLUSH_MS = 60_000;
/** Scheduled Events are written behind the binds, a few at a time, so they never slow binding. */
const MAX_EVENT_WRITES = 2;

const ctx = internalContext(SCHEDULER_NAME);

interface QueueEntry {
  state: 'active' | 'inflight' | 'unschedulable';
  attempts: number;
  backoffUntil: number;
  lastAttempt: number;
  /** A cluster change happened while backing off: retry as soon as the backoff ends. */
  woken: boolean;
  /** The last attempt failed on some node because of inter-pod (anti-)affinity. */
  interPod: boolean;
}

interface Accounted {
  node: string;
  req: PodRequests;
  /** Namespace, labels and required pod (anti-)affinity terms, for InterPodAffinity. */
  aff: AffinityPod;
}

export interface SchedulerOptions {
  /** Emit a Normal `Scheduled` Event per bound pod, as kube-scheduler does. Default true. */
  scheduledEvents?: boolean;
  /**
   * kube-scheduler's percentageOfNodesToScore: in clusters of 100 nodes or more, filtering stops
   * once this share of the nodes (never fewer than 100) is found feasible, and the next pod starts
   * where it stopped. 0 (the default) is kube's adaptive share, 50 % − 1 % per 125 nodes, at least
   * 5 %: 42 % of 1,000 nodes.
   */
  percentageOfNodesToScore?: number;
}

/** kube-scheduler's minFeasibleNodesToFind and minFeasibleNodesPercentageToFind. */
const MIN_FEASIBLE_NODES = 100;
const MIN_FEASIBLE_PERCENTAGE = 5;

/** numFeasibleNodesToFind: how many feasible nodes end the search. */
export function feasibleNodesToFind(allNodes: number, percentageOfNodesToScore = 0): number {
  if (allNodes < MIN_FEASIBLE_NODES) return allNodes;
  let percentage = percentageOfNodesToScore;
  if (percentage <= 0) percentage = Math.max(MIN_FEASIBLE_PERCENTAGE, 50 - Math.trunc(allNodes / 125));
  if (percentage >= 100) return allNodes;
  return Math.max(MIN_FEASIBLE_NODES, Math.trunc((allNodes * percentage) / 100));
}

export class Scheduler {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly usage = new Map<string, NodeUsage>();
  private readonly accounted = new Map<string, Accounted>();
  /** Accounted pods with required anti-affinity terms (they constrain every incoming pod). */
  private readonly withAntiAffinity = new Set<string>();
  /** Queued pods whose last attempt inter-pod affinity rejected somewhere (pruned lazily). */
  private readonly interPodRejected = new Set<string>();
  private readonly queue = new Map<string, QueueEntry>();
  /** Keys waiting for a scheduling attempt, FIFO. */
  private readonly active = new Set<string>();
  private readonly watchers: Watcher[] = [];
  private readonly events: EventRecorder;
  private readonly podsDef: ResourceDef;
  private inFlight = 0;
  private drainScheduled = false;
  private retryTimer?: NodeJS.Timeout;
  private retryAt = Infinity;
  private rrCursor = 0;
  /** The nodes' names in a stable order, rebuilt when a node comes or goes. */
  private nodeNames?: string[];
  private stopped = false;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly scheduledEvents: Array<{ pod: JsonObject; node: string }> = [];
  private eventWrites = 0;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    catalog: ResourceCatalog,
    private readonly subresources: Pick<Subresources, 'bind'>,
    private readonly options: SchedulerOptions = {},
  ) {
    this.events = new EventRecorder(store, catalog, SCHEDULER_NAME);
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
  }

  start(): void {
    const rev = this.storage.currentRevision();
    for (const n of this.storage.list(NODES))
      this.onNode({ type: 'ADDED', key: n.key, revision: n.revision, json: n.json });
    for (const p of this.storage.list(PODS))
      this.onPod({ type: 'ADDED', key: p.key, revision: p.revision, json: p.json });
    this.watchers.push(this.storage.watch(NODES, rev, (c) => this.onNode(c)));
    this.watchers.push(this.storage.watch(PODS, rev, (c) => this.onPod(c)));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.stop();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.active.clear();
  }

  /** Resolves once no pod is waiting for an attempt or being bound (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.active.size === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---------------------------------------------------------------- cache

  private onNode(c: Change): void {
    const name = c.key.slice(NODES.length);
    if (c.type === 'DELETED') {
      this.nodes.delete(name);
      this.nodeNames = undefined;
      return;
    }
    const info = nodeInfoFrom(JSON.parse(c.json) as JsonObject);
    const before = this.nodes.get(name);
    if (!this.nodes.has(name)) this.nodeNames = undefined;
    this.nodes.set(name, info);
    if (!before || before.signature !== info.signature) this.wakeUnschedulable();
  }

  private onPod(c: Change): void {
    if (c.type === 'DELETED') {
      this.unaccount(c.key);
      this.forgetQueued(c.key);
      const [, , , ns, name] = c.key.split('/');
      this.events.forget(ns, name);
      return;
    }
    const pod = JSON.parse(c.json) as JsonObject;
    const spec = (pod.spec ?? {}) as JsonObject;
    const phase = ((pod.status ?? {}) as JsonObject).phase;
    const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    if (nodeName) {
      this.forgetQueued(c.key);
      const a = this.accounted.get(c.key);
      if (phase === 'Succeeded' || phase === 'Failed') this.unaccount(c.key);
      else if (a?.node !== nodeName) this.account(c.key, nodeName, podRequests(spec), affinityPodOf(pod));
      else if (JSON.stringify(a.aff.labels) !== JSON.stringify((pod.metadata as ObjectMeta).labels ?? {})) {
        // Labels are what other pods' terms select (affinity terms are immutable).
        this.account(c.key, nodeName, a.req, affinityPodOf(pod));
        this.wakeInterPod();
      }
      return;
    }
    if (!wantsScheduling(pod)) {
      this.forgetQueued(c.key);
      return;
    }
    const entry = this.queue.get(c.key);
    if (!entry) {
      this.queue.set(c.key, {
        state: 'active',
        attempts: 0,
        backoffUntil: 0,
        lastAttempt: 0,
        woken: false,
        interPod: false,
      });
      this.activate(c.key);
    } else if (entry.state === 'unschedulable' && c.prevJson && specChanged(c.prevJson, pod)) {
      this.wake(c.key, entry, Date.now());
      this.armRetryTimer();
    }
  }

  private usageOf(node: string): NodeUsage {
    let u = this.usage.get(node);
    if (!u) {
      u = { requested: new Map(), pods: 0, nzCpu: 0, nzMem: 0 };
      this.usage.set(node, u);
    }
    return u;
  }

  private account(key: string, node: string, req: PodRequests, aff: AffinityPod): void {
    const moved = this.accounted.get(key)?.node !== node;
    this.unaccount(key, false);
    const u = this.usageOf(node);
    for (const [k, v] of req.res) u.requested.set(k, (u.requested.get(k) ?? 0) + v);
    u.pods++;
    u.nzCpu += req.nzCpu;
    u.nzMem += req.nzMem;
    this.accounted.set(key, { node, req, aff });
    if (aff.antiAffinity.length > 0) this.withAntiAffinity.add(key);
    // A pod on a node may be what a pending pod's affinity waits for.
    if (moved) this.wakeInterPod();
  }

  private unaccount(key: string, wake = true): void {
    const a = this.accounted.get(key);
    if (!a) return;
    this.accounted.delete(key);
    this.withAntiAffinity.delete(key);
    const u = this.usageOf(a.node);
    for (const [k, v] of a.req.res) u.requested.set(k, (u.requested.get(k) ?? 0) - v);
    u.pods--;
    u.nzCpu -= a.req.nzCpu;
    u.nzMem -= a.req.nzMem;
    if (wake) this.wakeUnschedulable();
  }

  // ---------------------------------------------------------------- queue

  private forgetQueued(key: string): void {
    const entry = this.queue.get(key);
    if (!entry || entry.state === 'inflight') return;
    this.queue.delete(key);
    this.active.delete(key);
  }

  private activate(key: string): void {
    this.active.add(key);
    this.scheduleDrain();
  }

  private wake(key: string, entry: QueueEntry, now: number): void {
    if (entry.backoffUntil <= now) {
      entry.state = 'active';
      entry.woken = false;
      this.activate(key);
    } else {
      entry.woken = true;
    }
  }

  private wakeUnschedulable(): void {
    const now = Date.now();
    let any = false;
    for (const [key, entry] of this.queue) {
      if (entry.state !== 'unschedulable') continue;
      this.wake(key, entry, now);
      any = true;
    }
    if (any) this.armRetryTimer();
  }

  /** Wakes the pods inter-pod affinity rejected: a pod landed, left or changed labels. */
  private wakeInterPod(): void {
    if (this.interPodRejected.size === 0) return;
    const now = Date.now();
    let any = false;
    for (const key of this.interPodRejected) {
      const entry = this.queue.get(key);
      if (!entry?.interPod) {
        this.interPodRejected.delete(key);
        continue;
      }
      if (entry.state !== 'unschedulable') continue;
      this.wake(key, entry, now);
      any = true;
    }
    if (any) this.armRetryTimer();
  }

  /** One timer for the earliest moment an unschedulable pod is due (backoff end or flush). */
  private armRetryTimer(): void {
    let due = Infinity;
    for (const entry of this.queue.values()) {
      if (entry.state !== 'unschedulable') continue;
      due = Math.min(due, entry.woken ? entry.backoffUntil : entry.lastAttempt + FLUSH_MS);
    }
    if (due === this.retryAt || this.stopped) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryAt = due;
    if (due === Infinity) return;
    this.retryTimer = setTimeout(() => this.onRetryTimer(), Math.max(0, due - Date.now()));
    this.retryTimer.unref();
  }

  private onRetryTimer(): void {
    this.retryTimer = undefined;
    this.retryAt = Infinity;
    const now = Date.now();
    for (const [key, entry] of this.queue) {
      if (entry.state !== 'unschedulable') continue;
      if ((entry.woken && entry.backoffUntil <= now) || entry.lastAttempt + FLUSH_MS <= now) {
        entry.state = 'active';
        entry.woken = false;
        this.activate(key);
      }
    }
    this.armRetryTimer();
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.stopped) return;
    this.drainScheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.drainScheduled = false;
    while (!this.stopped && this.active.size > 0 && this.inFlight < MAX_IN_FLIGHT) {
      const key = this.active.values().next().value as string;
      this.active.delete(key);
      this.scheduleOne(key);
    }
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (this.active.size > 0 || this.inFlight > 0) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private track(work: Promise<void>): void {
    this.inFlight++;
    void work
      .catch((e: unknown) => console.error(`peerpods ${SCHEDULER_NAME}: ${(e as Error).message}`))
      .finally(() => {
        this.inFlight--;
        if (this.active.size > 0) this.scheduleDrain();
        else this.notifyIdle();
      });
  }

  // ---------------------------------------------------------------- scheduling

  private scheduleOne(key: string): void {
    const entry = this.queue.get(key);
    const stored = this.storage.get(key);
    if (!entry) return;
    const pod = stored ? (JSON.parse(stored.json) as JsonObject) : undefined;
    if (!pod || !wantsScheduling(pod)) {
      this.queue.delete(key);
      return;
    }
    const spec = pod.spec as JsonObject;
    const req = podRequests(spec);
    const constraints = podConstraints(spec, req);
    const aff = affinityPodOf(pod);
    const interPod = this.interPodFilter(key, aff);
    const reasonsByNode = new Map<string, string[]>();
    const names = (this.nodeNames ??= [...this.nodes.keys()]);
    const enough = feasibleNodesToFind(names.length, this.options.percentageOfNodesToScore);
    let best: string | undefined;
    let bestAt = 0;
    let bestScore = -1;
    let feasible = 0;
    let processed = 0;
    // Scan from the round-robin cursor so that on equal scores the first one seen wins.
    for (; processed < names.length && feasible < enough; processed++) {
      const at = (this.rrCursor + processed) % names.length;
      const name = names[at];
      const node = this.nodes.get(name)!;
      const usage = this.usage.get(name);
      const reasons = filterNode(constraints, node, usage, interPod);
      if (reasons.length > 0) {
        reasonsByNode.set(name, reasons);
        continue;
      }
      feasible++;
      const score = usage ? scoreNode(req, node, usage) : 1;
      if (score > bestScore) {
        bestScore = score;
        best = name;
        bestAt = at;
      }
    }
    entry.state = 'inflight';
    entry.lastAttempt = Date.now();
    entry.interPod = interPod !== undefined && [...reasonsByNode.values()].some((rs) => INTER_POD_REASONS.has(rs[0]));
    if (entry.interPod) this.interPodRejected.add(key);
    if (best) {
      // A search cut short moves the cursor past every node it looked at, as kube's
      // nextStartNodeIndex does, so each node is looked at in turn; a full one, past the winner.
      this.rrCursor = (processed < names.length ? this.rrCursor + processed : bestAt + 1) % names.length;
      this.account(key, best, req, aff);
      this.track(this.bind(key, pod, best));
    } else {
      this.track(this.recordFailure(key, pod, fitErrorMessage(this.nodes.size, reasonsByNode)));
    }
  }

  /** InterPodAffinity's pre-filter over the accounted pods; undefined when nothing applies. */
  private interPodFilter(key: string, incoming: AffinityPod): InterPodFilter | undefined {
    const own = incoming.affinity.length > 0 || incoming.antiAffinity.length > 0;
    if (!own && this.withAntiAffinity.size === 0) return undefined;
    const accounted = this.accounted;
    const keys = own ? accounted.keys() : this.withAntiAffinity.values();
    function* existing(): Generator<ExistingPod> {
      for (const k of keys) {
        const a = accounted.get(k);
        if (a && k !== key) yield { node: a.node, pod: a.aff };
      }
    }
    const nsCache = new Map<string, Record<string, string> | undefined>();
    const nsLabels = (ns: string): Record<string, string> | undefined => {
      if (!nsCache.has(ns)) {
        const stored = this.storage.get(NAMESPACES + ns);
        const labels = stored ? (JSON.parse(stored.json) as { metadata?: ObjectMeta }).metadata?.labels : undefined;
        nsCache.set(ns, labels ?? undefined);
      }
      return nsCache.get(ns);
    };
    return interPodFilter(incoming, existing(), this.nodes, nsLabels);
  }

  private async bind(key: string, pod: JsonObject, node: string): Promise<void> {
    const meta = pod.metadata as ObjectMeta;
    try {
      await this.subresources.bind(
        this.podsDef,
        meta.namespace,
        meta.name!,
        { target: { kind: 'Node', name: node } },
        ctx,
      );
    } catch (e) {
      const code = (e as { code?: number }).code;
      // 404: the pod went away; 409: someone else bound it. The change stream has the truth.
      this.resyncAccounting(key);
      const entry = this.queue.get(key);
      if (code === 404 || code === 409 || !entry) {
        this.queue.delete(key);
        return;
      }
      this.backOff(key, entry);
      throw e;
    }
    this.queue.delete(key);
    if (this.options.scheduledEvents !== false) {
      this.scheduledEvents.push({ pod, node });
      this.pumpEvents();
    }
  }

  private pumpEvents(): void {
    while (!this.stopped && this.eventWrites < MAX_EVENT_WRITES && this.scheduledEvents.length > 0) {
      const { pod, node } = this.scheduledEvents.shift()!;
      const meta = pod.metadata as ObjectMeta;
      this.eventWrites++;
      void this.events
        .record(
          involved(pod),
          'Normal',
          'Scheduled',
          `Successfully assigned ${meta.namespace}/${meta.name} to ${node}`,
          {
            action: 'Binding',
            aggregate: false,
          },
        )
        .catch((e: unknown) => console.error(`peerpods ${SCHEDULER_NAME}: event: ${(e as Error).message}`))
        .finally(() => {
          this.eventWrites--;
          this.pumpEvents();
        });
    }
  }

  /** After a failed bind, count the pod where storage says it is (or nowhere). */
  private resyncAccounting(key: string): void {
    const stored = this.storage.get(key);
    const pod = stored ? (JSON.parse(stored.json) as JsonObject) : undefined;
    const spec = (pod?.spec ?? {}) as JsonObject;
    const phase = ((pod?.status ?? {}) as JsonObject).phase;
    if (pod && typeof spec.nodeName === 'string' && spec.nodeName && phase !== 'Succeeded' && phase !== 'Failed')
      this.account(key, spec.nodeName, podRequests(spec), affinityPodOf(pod));
    else this.unaccount(key, false);
  }

  private backOff(key: string, entry: QueueEntry): void {
    entry.attempts++;
    entry.state = 'unschedulable';
    entry.woken = false;
    entry.backoffUntil = Date.now() + exponentialDelay(entry.attempts - 1, INITIAL_BACKOFF_MS, MAX_BACKOFF_MS);
    this.armRetryTimer();
  }

  private async recordFailure(key: string, pod: JsonObject, message: string): Promise<void> {
    const entry = this.queue.get(key);
    if (entry) this.backOff(key, entry);
    const meta = pod.metadata as ObjectMeta;
    await this.store.updateWith(
      this.podsDef,
      meta.namespace,
      meta.name!,
      ctx,
      (current) => {
        if (!wantsScheduling(current)) return undefined;
        const status = (current.status ?? {}) as JsonObject;
        const conditions = (status.conditions ?? []) as JsonObject[];
        const old = conditions.find((c) => c.type === 'PodScheduled');
        if (old && old.status === 'False' && old.reason === 'Unschedulable' && old.message === message)
          return undefined;
        const cond = {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: old?.status === 'False' ? old.lastTransitionTime : formatTime(new Date()),
          reason: 'Unschedulable',
          message,
        };
        current.status = { ...status, conditions: [...conditions.filter((c) => c.type !== 'PodScheduled'), cond] };
        return current;
      },
      'status',
    );
    await this.events.record(involved(pod), 'Warning', 'FailedScheduling', message, { action: 'Scheduling' });
  }
}

function wantsScheduling(pod: JsonObject): boolean {
  const meta = (pod.metadata ?? {}) as ObjectMeta;
  const spec = (pod.spec ?? {}) as JsonObject;
  const phase = ((pod.status ?? {}) as JsonObject).phase;
  if (spec.nodeName || meta.deletionTimestamp) return false;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (spec.schedulerName && spec.schedulerName !== SCHEDULER_NAME) return false;
  return !(Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0);
}

function specChanged(prevJson: string, pod: JsonObject): boolean {
  const prev = JSON.parse(prevJson) as JsonObject;
  const labels = (o: JsonObject): unknown => (o.metadata as ObjectMeta | undefined)?.labels;
  return (
    JSON.stringify(prev.spec) !== JSON.stringify(pod.spec) ||
    JSON.stringify(labels(prev)) !== JSON.stringify(labels(pod))
  );
}

function involved(pod: JsonObject): ObjectReference {
  return objectReference({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata as ObjectMeta });
}
