// The DaemonSet controller (kube-controller-manager's pkg/controller/daemon, daemon_controller.go
// syncDaemonSet): one daemon pod on every eligible node (eligibility.ts), made with node affinity
// to that node and left to the scheduler to bind (pods.ts), history as ControllerRevisions
// (history.ts), RollingUpdate (rolling-update.ts) or OnDelete, and the status (status.ts).
//
// - Per node: none → create (slow-start batches, at most 250 per sync); Failed → delete with the
//   FailedDaemonPod event, backing off per node; Succeeded → delete; several → all but the oldest
//   go (with surge: one old and one new may stay); ineligible, or an untolerated NoExecute taint →
//   delete. Pods not yet bound to a node that no longer exists are deleted; bound ones are the pod
//   GC's (the node lifecycle controller).
// - Events as kube's pod control words them: SuccessfulCreate `Created pod: x`, SuccessfulDelete
//   `Deleted pod: x`, FailedCreate / FailedDelete, and SelectingAll for an empty selector.
//
// Storage is read directly and writes complete before the next sync of the same key, so kube's
// expectations (which cover informer lag) are not needed.
import { isPodReady, isPodTerminal } from '../../../../apimachinery/core/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import type { Change, Storage } from '../../../storage/storage.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { ChangeDrivenController } from '../../change-driven.ts';
import { EventRecorder } from '../../events.ts';
import {
  availability,
  claim,
  controllerRef,
  deleteExactly,
  errorCode,
  int,
  isNamespaceTerminating,
  labelsOf,
  listObjects,
  parseObject,
  retryAfterBackoff,
  selectorMatcher,
  slowStartBatch,
  syncBackoff,
  writeStatusUnlessWritten,
  type WorkloadObject,
} from '../common.ts';
import { revisionNumber } from '../history.ts';
import { daemonNodeFrom, nodeShouldRunDaemonPod, targetNodeName, type Eligibility } from './eligibility.ts';
import { FailedPodsBackoff } from './failed-pods.ts';
import { historyToDelete, keepNewest, matchesTemplate, newRevision, revisionAfter, revisionHash } from './history.ts';
import { byBoundThenCreation, isPodUpdated, newDaemonPod, REVISION_HASH_LABEL, templateGeneration } from './pods.ts';
import { allowsSurge, planRollingUpdate } from './rolling-update.ts';
import { daemonSetStatus } from './status.ts';
import { OwnerRouting } from '../routing.ts';
import { deepEqual } from '../../../../apimachinery/json/index.ts';

const COMPONENT = 'daemonset-controller';
const ctx = internalContext(COMPONENT);
const DS_PREFIX = '/apps/daemonsets/';
const POD_PREFIX = '/core/pods/';
const REVISION_PREFIX = '/apps/controllerrevisions/';
const NODE_PREFIX = '/core/nodes/';
/** kube's burstReplicas for DaemonSets: the most pods created or deleted in one sync. */
const BURST_REPLICAS = 250;

interface History {
  hash: string;
  old: WorkloadObject[];
  collisionCount: number;
}

/** What one sync knows of the nodes. */
interface NodeView {
  names: string[];
  eligibility: Map<string, Eligibility>;
}

export class DaemonSetController extends ChangeDrivenController {
  private readonly dsDef: ResourceDef;
  private readonly podsDef: ResourceDef;
  private readonly revisionDef: ResourceDef;
  private readonly events: EventRecorder;
  private readonly backoff = syncBackoff();
  private readonly failedPods = new FailedPodsBackoff();
  private readonly routing: OwnerRouting;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(COMPONENT, storage, store, catalog);
    this.dsDef = catalog.lookup('apps', 'v1', 'daemonsets')!;
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
    this.revisionDef = catalog.lookup('apps', 'v1', 'controllerrevisions')!;
    this.events = new EventRecorder(store, catalog, COMPONENT);
    this.routing = new OwnerRouting(storage, this.loop, {
      group: 'apps',
      kind: 'DaemonSet',
      prefix: DS_PREFIX,
      owned: [
        { prefix: POD_PREFIX, adoption: 'new-relabelled-or-released' },
        { prefix: REVISION_PREFIX, adoption: 'new-relabelled-or-released' },
      ],
      backoff: this.backoff,
      events: this.events,
      onDeleted: (_key, last) => {
        const uid = parseObject(last)?.metadata.uid;
        if (uid) this.failedPods.forgetOwner(uid);
      },
    });
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
  }

  // ---------------------------------------------------------------- events in

  protected observe(c: Change): void {
    if (!this.routing.observe(c) && c.key.startsWith(NODE_PREFIX)) this.observeNode(c);
  }

  /** Nodes joining, leaving, or changing what eligibility reads (heartbeats do not count). */
  private observeNode(c: Change): void {
    if (c.type === 'MODIFIED') {
      const signature = (json: string | undefined): string => {
        const n = parseObject(json);
        return n ? JSON.stringify(daemonNodeFrom(n)) : '';
      };
      if (signature(c.json) === signature(c.prevJson)) return;
    }
    this.routing.enqueueAll();
  }

  // ---------------------------------------------------------------- sync

  protected async process(key: string): Promise<void> {
    const ds = parseObject(this.storage.get(DS_PREFIX + key)?.json);
    if (!ds) return;
    try {
      await this.sync(ds);
      this.backoff.forget(key);
    } catch (e) {
      if (isNamespaceTerminating(e)) return;
      retryAfterBackoff(this.loop, this.backoff, COMPONENT, key, e);
    }
  }

  /** syncDaemonSet: history, manage, roll, trim history, status. */
  private async sync(ds: WorkloadObject): Promise<void> {
    const selector = selectorMatcher(ds.spec.selector);
    if (selector?.all) {
      await this.event(
        ds,
        'Warning',
        'SelectingAll',
        'This daemon set is selecting all pods. A non-empty selector is required.',
      );
      return;
    }
    // Malformed (validation keeps these out; kept or foreign storage might not): skip.
    if (!selector || !isObject(ds.spec.template) || !isObject(ds.spec.template.spec)) return;
    // Being deleted: what it owns may already be gone or orphaned, so its status cannot be known.
    if (ds.metadata.deletionTimestamp) return;
    const history = await this.constructHistory(ds, selector.matches);
    const nodes = this.nodeView(ds);
    let error: unknown;
    let recheckIn: number | undefined;
    try {
      recheckIn = await this.manage(ds, nodes, history.hash, selector.matches);
      const strategy = isObject(ds.spec.updateStrategy) ? ds.spec.updateStrategy : {};
      if (strategy.type === 'RollingUpdate') {
        const r = await this.rollingUpdate(ds, nodes, history.hash, selector.matches);
        if (r !== undefined) recheckIn = Math.min(recheckIn ?? r, r);
      }
      await this.cleanupHistory(ds, history.old, selector.matches);
    } catch (e) {
      error = e;
    }
    // Status reflects what exists now, whatever the sync managed to do.
    const r = await this.writeStatus(ds, nodes, history, selector.matches);
    if (r !== undefined) recheckIn = Math.min(recheckIn ?? r, r);
    if (recheckIn !== undefined) this.loop.addAfter(`${ds.metadata.namespace}/${ds.metadata.name}`, recheckIn);
    if (error !== undefined) throw error;
  }

  private nodeView(ds: WorkloadObject): NodeView {
    const eligibility = new Map<string, Eligibility>();
    for (const n of listObjects(this.storage, NODE_PREFIX))
      eligibility.set(n.metadata.name!, nodeShouldRunDaemonPod(ds, daemonNodeFrom(n)));
    return { names: [...eligibility.keys()], eligibility };
  }

  /** getDaemonPods: claimed pods (orphans adopted, strays released). */
  private claimPods(ds: WorkloadObject, matches: (l: Record<string, string>) => boolean): Promise<WorkloadObject[]> {
    const ns = ds.metadata.namespace ?? '';
    return claim({
      owner: ds,
      ownerKind: 'DaemonSet',
      candidates: listObjects(this.storage, POD_PREFIX, ns),
      matches,
      update: (p, mutate) => this.store.updateWith(this.podsDef, ns, p.metadata.name!, ctx, mutate),
    });
  }

  /** getNodesToDaemonPods: claimed pods by the node they are for (deleted terminal ones left out). */
  private async nodesToDaemonPods(
    ds: WorkloadObject,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<Map<string, WorkloadObject[]>> {
    const out = new Map<string, WorkloadObject[]>();
    for (const p of await this.claimPods(ds, matches)) {
      if (isPodTerminal(p) && p.metadata.deletionTimestamp) continue;
      const node = targetNodeName(p);
      if (node === undefined) continue;
      out.set(node, [...(out.get(node) ?? []), p]);
    }
    return out;
  }

  // ---------------------------------------------------------------- manage

  /** manage: the pods each node should have. Returns when to look again (failed-pod back-off). */
  private async manage(
    ds: WorkloadObject,
    nodes: NodeView,
    hash: string,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<number | undefined> {
    const nodeToPods = await this.nodesToDaemonPods(ds, matches);
    const create: string[] = [];
    const remove: WorkloadObject[] = [];
    let recheckIn: number | undefined;
    const now = Date.now();
    const surge = allowsSurge(ds);
    for (const node of nodes.names) {
      const { shouldRun, shouldContinueRunning } = nodes.eligibility.get(node)!;
      const pods = nodeToPods.get(node);
      if (shouldRun && !pods) {
        create.push(node);
        continue;
      }
      if (!pods) continue;
      if (!shouldContinueRunning) {
        remove.push(...pods.filter((p) => !p.metadata.deletionTimestamp));
        continue;
      }
      const running: WorkloadObject[] = [];
      for (const p of pods) {
        if (p.metadata.deletionTimestamp) continue;
        if (p.status.phase === 'Failed') {
          // The kubelet may keep rejecting the pod: delete and recreate no faster than the back-off.
          const backoffKey = `${ds.metadata.uid}/${int(ds.status.observedGeneration)}/${node}`;
          const wait = this.failedPods.remaining(backoffKey, now);
          if (wait > 0) {
            recheckIn = Math.min(recheckIn ?? wait, wait);
            continue;
          }
          this.failedPods.next(backoffKey, now);
          await this.event(
            ds,
            'Warning',
            'FailedDaemonPod',
            `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${node}, will try to kill it`,
          );
          remove.push(p);
        } else if (p.status.phase === 'Succeeded') remove.push(p);
        else running.push(p);
      }
      running.sort(byBoundThenCreation);
      if (!surge) {
        remove.push(...running.slice(1));
        continue;
      }
      if (running.length <= 1) {
        if (running.length === 0 && shouldRun) create.push(node);
        continue;
      }
      remove.push(...this.surgeExcess(ds, running, hash, now));
    }
    // Pods the scheduler never bound, for nodes that are gone: no pod GC will see them.
    const known = new Set(nodes.names);
    for (const [node, pods] of nodeToPods) {
      if (!known.has(node)) remove.push(...pods.filter((p) => !p.spec.nodeName && !p.metadata.deletionTimestamp));
    }
    await this.syncNodes(ds, remove, create, hash);
    return recheckIn;
  }

  /**
   * With surge, a node keeps its oldest new pod and its oldest old pod only while the new one is
   * not yet available and the old one still Ready; everything else goes.
   */
  private surgeExcess(ds: WorkloadObject, running: WorkloadObject[], hash: string, now: number): WorkloadObject[] {
    const generation = templateGeneration(ds);
    const out: WorkloadObject[] = [];
    let oldestNew: WorkloadObject | undefined;
    let oldestOld: WorkloadObject | undefined;
    for (const p of running) {
      const updated = isPodUpdated(p, hash, generation);
      if (updated && !oldestNew) oldestNew = p;
      else if (!updated && !oldestOld) oldestOld = p;
      else out.push(p);
    }
    if (oldestNew && oldestOld) {
      const newAvailable = availability(oldestNew, int(ds.spec.minReadySeconds), now) === true;
      if (!isPodReady(oldestOld) || newAvailable) out.push(oldestOld);
    }
    return out;
  }

  /** syncNodes: creates (slow start) and deletes, each bounded by burstReplicas. */
  private async syncNodes(ds: WorkloadObject, remove: WorkloadObject[], create: string[], hash: string): Promise<void> {
    const toCreate = create.slice(0, BURST_REPLICAS);
    const toDelete = remove.slice(0, BURST_REPLICAS);
    const created = await slowStartBatch(toCreate.length, (i) => this.createPod(ds, toCreate[i], hash));
    const deleted = await Promise.allSettled(toDelete.map((p) => this.deletePod(ds, p)));
    const failed = deleted.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const error = created.error ?? failed?.reason;
    if (error !== undefined && !isNamespaceTerminating(error)) throw error;
  }

  private async createPod(ds: WorkloadObject, node: string, hash: string): Promise<void> {
    try {
      const created = await this.store.create(this.podsDef, ds.metadata.namespace, newDaemonPod(ds, node, hash), ctx);
      await this.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${(created.metadata as ObjectMeta).name}`);
    } catch (e) {
      if (!isNamespaceTerminating(e))
        await this.event(ds, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }

  private async deletePod(ds: WorkloadObject, pod: WorkloadObject): Promise<void> {
    let deleted: boolean;
    try {
      deleted = await deleteExactly(this.store, this.podsDef, pod.metadata, ctx);
    } catch (e) {
      await this.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
      throw e;
    }
    if (deleted) await this.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }

  // ---------------------------------------------------------------- rolling update

  private async rollingUpdate(
    ds: WorkloadObject,
    nodes: NodeView,
    hash: string,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<number | undefined> {
    const nodeToDaemonPods = await this.nodesToDaemonPods(ds, matches);
    let desired = 0;
    for (const node of nodes.names) {
      if (!nodes.eligibility.get(node)!.shouldRun) continue;
      desired++;
      if (!nodeToDaemonPods.has(node)) nodeToDaemonPods.set(node, []);
    }
    const plan = planRollingUpdate({
      ds,
      nodeToDaemonPods,
      shouldRun: (node) => nodes.eligibility.get(node)?.shouldRun === true,
      desiredNumberScheduled: desired,
      hash,
      generation: templateGeneration(ds),
      now: Date.now(),
    });
    await this.syncNodes(ds, plan.podsToDelete, plan.nodesToCreate, hash);
    return plan.recheckIn;
  }

  // ---------------------------------------------------------------- history

  /** constructHistory: the current revision (made, renumbered or deduplicated) and the old ones. */
  private async constructHistory(
    ds: WorkloadObject,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<History> {
    const ns = ds.metadata.namespace ?? '';
    const claimed = await claim({
      owner: ds,
      ownerKind: 'DaemonSet',
      candidates: listObjects(this.storage, REVISION_PREFIX, ns),
      matches,
      update: (r, mutate) => this.store.updateWith(this.revisionDef, ns, r.metadata.name!, ctx, mutate),
    });
    const current = claimed.filter((r) => matchesTemplate(ds, r));
    const old = claimed.filter((r) => !matchesTemplate(ds, r));
    const wanted = revisionAfter(old);
    if (current.length === 0) {
      const { revision, collisionCount } = await this.snapshot(ds, wanted);
      return { hash: revisionHash(revision), old, collisionCount };
    }
    const { keep, duplicates } = keepNewest(current);
    for (const d of duplicates) await this.dropDuplicate(ds, d, keep, matches);
    if (revisionNumber(keep) < wanted) {
      await this.store.updateWith(this.revisionDef, ns, keep.metadata.name!, ctx, (fresh) => {
        if ((fresh.metadata as ObjectMeta).uid !== keep.metadata.uid) return undefined;
        fresh.revision = wanted;
        return fresh;
      });
    }
    return { hash: revisionHash(keep), old, collisionCount: int(ds.status.collisionCount) };
  }

  /**
   * snapshot: a revision of the current template. A name taken by a revision of another template
   * (a hash collision) bumps collisionCount, which the status write keeps.
   */
  private async snapshot(
    ds: WorkloadObject,
    revision: number,
  ): Promise<{ revision: WorkloadObject; collisionCount: number }> {
    const ns = ds.metadata.namespace;
    let collisionCount = int(ds.status.collisionCount);
    for (;;) {
      const cr = newRevision(ds, revision, collisionCount);
      try {
        const created = await this.store.create(this.revisionDef, ns, cr, ctx);
        return { revision: parseObject(JSON.stringify(created))!, collisionCount };
      } catch (e) {
        if (errorCode(e) !== 409) throw e;
        const name = String((cr.metadata as ObjectMeta).name);
        const existing = parseObject(this.storage.get(`${REVISION_PREFIX}${ns}/${name}`)?.json);
        if (existing && matchesTemplate(ds, existing) && controllerRef(existing.metadata)?.uid === ds.metadata.uid)
          return { revision: existing, collisionCount };
        collisionCount++;
      }
    }
  }

  /**
   * dedupCurHistories: pods carrying a duplicate's hash move to the kept revision's, then the
   * duplicate goes. (kube relabels every pod whose hash differs from the kept one, old pods
   * included; only the duplicate's pods are relabelled here, so old pods stay old.)
   */
  private async dropDuplicate(
    ds: WorkloadObject,
    duplicate: WorkloadObject,
    keep: WorkloadObject,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<void> {
    const from = revisionHash(duplicate);
    const to = revisionHash(keep);
    for (const p of await this.claimPods(ds, matches)) {
      if (labelsOf(p)[REVISION_HASH_LABEL] !== from) continue;
      await this.store.updateWith(this.podsDef, p.metadata.namespace, p.metadata.name!, ctx, (fresh) => {
        const m = fresh.metadata as ObjectMeta;
        if (m.uid !== p.metadata.uid) return undefined;
        m.labels = { ...(m.labels ?? {}), [REVISION_HASH_LABEL]: to };
        return fresh;
      });
    }
    await this.deleteRevision(duplicate);
  }

  /** cleanupHistory. */
  private async cleanupHistory(
    ds: WorkloadObject,
    old: WorkloadObject[],
    matches: (l: Record<string, string>) => boolean,
  ): Promise<void> {
    if (old.length <= int(ds.spec.revisionHistoryLimit, 10)) return;
    const live = new Set<string>();
    for (const pods of (await this.nodesToDaemonPods(ds, matches)).values()) {
      for (const p of pods) {
        const h = labelsOf(p)[REVISION_HASH_LABEL];
        if (h) live.add(h);
      }
    }
    for (const r of historyToDelete(ds, old, live)) await this.deleteRevision(r);
  }

  private async deleteRevision(r: WorkloadObject): Promise<void> {
    await deleteExactly(this.store, this.revisionDef, r.metadata, ctx);
  }

  // ---------------------------------------------------------------- status

  /** updateDaemonSetStatus; returns when to look again (a pod's minReadySeconds wait). */
  private async writeStatus(
    ds: WorkloadObject,
    nodes: NodeView,
    history: History,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<number | undefined> {
    const { status, recheckIn } = daemonSetStatus({
      ds,
      nodes: nodes.names,
      shouldRun: (node) => nodes.eligibility.get(node)?.shouldRun === true,
      nodeToDaemonPods: await this.nodesToDaemonPods(ds, matches),
      hash: history.hash,
      generation: templateGeneration(ds),
      collisionCount: history.collisionCount,
      observed: true,
      now: Date.now(),
    });
    if (!deepEqual(status, ds.status)) await writeStatusUnlessWritten(this.store, this.dsDef, ds, ctx, status);
    return recheckIn;
  }

  private async event(ds: WorkloadObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.events.recordBestEffort(
      { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: ds.metadata },
      type,
      reason,
      message,
    );
  }
}
