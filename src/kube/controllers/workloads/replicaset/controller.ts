// The ReplicaSet controller (kube-controller-manager's replicaset controller): keeps
// `spec.replicas` active pods matching the selector and writes the status. The same controller
// runs core/v1 ReplicationControllers (kube's ReplicationManager wraps it the same way): a
// `ReplicatedKind` names the resource, its apiVersion and how its selector reads.
//
// - Pods it counts are those it controls (controller ownerReference to the RS) that are active:
//   not terminal (Succeeded/Failed) and not being deleted. Matching orphans are adopted, owned
//   pods whose labels no longer match are released, as ClaimPods does.
// - Missing pods are created from the template (`generateName: <rs>-`, the template's labels,
//   annotations and finalizers, a controller ownerReference with blockOwnerDeletion) in slow-start
//   batches; extra pods are deleted, unscheduled / pending / not-ready / newest first (kube's
//   ActivePodsWithRanks). At most 500 pods are created or deleted per sync (burstReplicas).
// - Terminal pods it owns are replaced like kube does, and also deleted at once (kube leaves them
//   to pod GC's terminated-pod threshold, which this control plane does not run).
// - status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas (Ready for
//   spec.minReadySeconds: the RS is looked at again when a pod's wait is over), observedGeneration
//   and the ReplicaFailure condition when creating or deleting pods fails. Zero counts are left
//   out, as Go's omitempty does.
//
// Storage is read directly and writes complete before the next sync of the same key, so kube's
// "expectations" (which cover informer lag) are not needed: a sync always sees its own writes.
import { isPodTerminal } from '../../../../apimachinery/core/index.ts';
import type { Change, Storage } from '../../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { formatTime } from '../../../../apimachinery/time/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import { ChangeDrivenController } from '../../change-driven.ts';
import { EventRecorder } from '../../events.ts';
import {
  availability,
  AvailabilityCount,
  claim,
  deleteExactly,
  int,
  isActive,
  isNamespaceTerminating,
  labelsOf,
  listObjects,
  parseObject,
  podFromTemplate,
  retryAfterBackoff,
  selectorMatcher,
  slowStartBatch,
  syncBackoff,
  writeStatusUnlessWritten,
  type WorkloadObject,
} from '../common.ts';
import { podsToDelete } from './ranking.ts';
import { OwnerRouting } from '../routing.ts';
import { deepEqual } from '../../../../apimachinery/json/index.ts';

const POD_PREFIX = '/core/pods/';
/** kube's burstReplicas: the most pods created or deleted in one sync. */
const BURST_REPLICAS = 500;

/** A kind this controller can run: ReplicaSet, or ReplicationController. */
export interface ReplicatedKind {
  /** The event source and field manager. */
  component: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  /** The object's selector as a metav1.LabelSelector. */
  labelSelector(spec: JsonObject): unknown;
}

export const REPLICA_SET: ReplicatedKind = {
  component: 'replicaset-controller',
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  kind: 'ReplicaSet',
  labelSelector: (spec) => spec.selector,
};

export class ReplicaSetController extends ChangeDrivenController {
  private readonly rsDef: ResourceDef;
  private readonly podsDef: ResourceDef;
  private readonly events: EventRecorder;
  private readonly backoff = syncBackoff();
  private readonly ctx: ReturnType<typeof internalContext>;
  /** Storage prefix of the owning kind's objects. */
  private readonly prefix: string;
  private readonly apiVersion: string;
  private readonly routing: OwnerRouting;

  constructor(
    storage: Storage,
    store: ObjectStore,
    catalog: ResourceCatalog,
    private readonly owner: ReplicatedKind = REPLICA_SET,
  ) {
    super(owner.component, storage, store, catalog);
    this.rsDef = catalog.lookup(owner.group, owner.version, owner.resource)!;
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
    this.events = new EventRecorder(store, catalog, owner.component);
    this.ctx = internalContext(owner.component);
    this.prefix = `/${owner.group || 'core'}/${owner.resource}/`;
    this.apiVersion = owner.group ? `${owner.group}/${owner.version}` : owner.version;
    this.routing = new OwnerRouting(storage, this.loop, {
      group: owner.group,
      kind: owner.kind,
      prefix: this.prefix,
      labelSelector: (spec) => owner.labelSelector(spec),
      // Unlike the other workload controllers, a pod released with its labels unchanged does not
      // wake the owners that may adopt it (kube's updatePod does); kept as it was.
      owned: [{ prefix: POD_PREFIX, adoption: 'new-or-relabelled' }],
      backoff: this.backoff,
      events: this.events,
    });
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
  }

  private selector(rs: WorkloadObject): ReturnType<typeof selectorMatcher> {
    return selectorMatcher(this.owner.labelSelector(rs.spec));
  }

  protected observe(c: Change): void {
    this.routing.observe(c);
  }

  protected async process(key: string): Promise<void> {
    const stored = this.storage.get(this.prefix + key);
    const rs = parseObject(stored?.json);
    if (!rs) return;
    try {
      await this.sync(rs);
      this.backoff.forget(key);
    } catch (e) {
      retryAfterBackoff(this.loop, this.backoff, this.owner.component, key, e);
    }
  }

  private async sync(rs: WorkloadObject): Promise<void> {
    const ns = rs.metadata.namespace ?? '';
    const selector = this.selector(rs);
    const template = isObject(rs.spec.template) ? rs.spec.template : undefined;
    // Malformed (validation keeps these out; kept or foreign storage might not): skip.
    if (!selector || selector.all || !template || !isObject(template.spec)) return;
    const pods = listObjects(this.storage, POD_PREFIX, ns);
    const owned = await claim({
      owner: rs,
      ownerKind: this.owner.kind,
      ownerApiVersion: this.apiVersion,
      candidates: pods,
      matches: selector.matches,
      canAdopt: isActive,
      update: (p, mutate) => this.store.updateWith(this.podsDef, ns, p.metadata.name!, this.ctx, mutate),
    });
    const active = owned.filter(isActive);
    let manageError: { reason: string; message: string } | undefined;
    if (!rs.metadata.deletionTimestamp) {
      await this.deleteTerminal(owned.filter((p) => isPodTerminal(p) && !p.metadata.deletionTimestamp));
      manageError = await this.manageReplicas(rs, template, active, int(rs.spec.replicas, 1));
    }
    await this.updateStatus(rs, active, template, manageError);
    if (manageError) throw new Error(manageError.message);
  }

  private async deleteTerminal(pods: WorkloadObject[]): Promise<void> {
    await Promise.all(pods.map((p) => this.deletePod(p)));
  }

  private async deletePod(p: WorkloadObject): Promise<void> {
    await deleteExactly(this.store, this.podsDef, p.metadata, this.ctx);
  }

  /** The ReplicaFailure reason and message when creating or deleting failed. */
  private async manageReplicas(
    rs: WorkloadObject,
    template: JsonObject,
    active: WorkloadObject[],
    replicas: number,
  ): Promise<{ reason: string; message: string } | undefined> {
    const key = `${rs.metadata.namespace}/${rs.metadata.name}`;
    const diff = active.length - replicas;
    if (diff < 0) {
      const count = Math.min(-diff, BURST_REPLICAS);
      const { error } = await slowStartBatch(count, () => this.createPod(rs, template));
      if (count < -diff) this.loop.add(key);
      if (error === undefined || isNamespaceTerminating(error)) return undefined;
      const message = (error as Error).message;
      await this.event(rs, 'Warning', 'FailedCreate', `Error creating: ${message}`, true);
      return { reason: 'FailedCreate', message };
    }
    if (diff > 0) {
      const victims = podsToDelete(active, Math.min(diff, BURST_REPLICAS));
      if (diff > BURST_REPLICAS) this.loop.add(key);
      const results = await Promise.allSettled(
        victims.map(async (p) => {
          await this.deletePod(p);
          await this.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        const message = (failed.reason as Error).message;
        await this.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${message}`, true);
        return { reason: 'FailedDelete', message };
      }
    }
    return undefined;
  }

  private async createPod(rs: WorkloadObject, template: JsonObject): Promise<void> {
    const pod = podFromTemplate(rs, this.owner.kind, template, this.apiVersion);
    const created = await this.store.create(this.podsDef, rs.metadata.namespace, pod, this.ctx);
    const podName = String((created.metadata as ObjectMeta).name);
    await this.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${podName}`);
  }

  private async updateStatus(
    rs: WorkloadObject,
    active: WorkloadObject[],
    template: JsonObject,
    manageError: { reason: string; message: string } | undefined,
  ): Promise<void> {
    const minReady = int(rs.spec.minReadySeconds);
    const templateLabels = Object.entries(labelsOf(template));
    const now = Date.now();
    let fullyLabeled = 0;
    const count = new AvailabilityCount();
    for (const p of active) {
      const labels = labelsOf(p);
      if (templateLabels.every(([k, v]) => labels[k] === v)) fullyLabeled++;
      count.add(availability(p, minReady, now));
    }
    const { ready, available, recheckIn } = count;
    const old = rs.status;
    const conditions = (Array.isArray(old.conditions) ? old.conditions : []).filter(isObject);
    const failure = conditions.find((c) => c.type === 'ReplicaFailure');
    let nextConditions = conditions;
    if (manageError && !failure) {
      nextConditions = [
        ...conditions,
        {
          type: 'ReplicaFailure',
          status: 'True',
          lastTransitionTime: formatTime(new Date()),
          reason: manageError.reason,
          message: manageError.message,
        },
      ];
    } else if (!manageError && failure) nextConditions = conditions.filter((c) => c !== failure);

    const status: JsonObject = { replicas: active.length };
    if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled;
    if (ready) status.readyReplicas = ready;
    if (available) status.availableReplicas = available;
    if (typeof rs.metadata.generation === 'number' && rs.metadata.generation > 0)
      status.observedGeneration = rs.metadata.generation;
    if (nextConditions.length > 0) status.conditions = nextConditions;
    for (const [k, v] of Object.entries(old)) if (!(k in status) && !KNOWN_STATUS.has(k)) status[k] = v;

    if (!deepEqual(status, old)) await writeStatusUnlessWritten(this.store, this.rsDef, rs, this.ctx, status);
    // Pods Ready but not yet for minReadySeconds become available later: look again then.
    if (recheckIn !== undefined) this.loop.addAfter(`${rs.metadata.namespace}/${rs.metadata.name}`, recheckIn);
  }

  private async event(
    rs: WorkloadObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    aggregate = false,
  ): Promise<void> {
    await this.events.recordBestEffort(
      { apiVersion: this.apiVersion, kind: this.owner.kind, metadata: rs.metadata },
      type,
      reason,
      message,
      { aggregate },
    );
  }
}

/** Status fields this controller owns; others (terminatingReplicas, written by newer clients) are kept. */
const KNOWN_STATUS = new Set([
  'replicas',
  'fullyLabeledReplicas',
  'readyReplicas',
  'availableReplicas',
  'observedGeneration',
  'conditions',
]);
