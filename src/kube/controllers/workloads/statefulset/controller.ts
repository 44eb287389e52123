// The StatefulSet controller (kube-controller-manager's pkg/controller/statefulset,
// stateful_set_control.go updateStatefulSet): pods `<set>-<ordinal>` with stable identity and
// storage (identity.ts), history as ControllerRevisions (revisions.ts).
//
// - OrderedReady creates ordinals start..start+replicas-1 one at a time, each once its
//   predecessor is Running and Ready (and available for minReadySeconds), and scales down from the
//   highest ordinal one at a time, waiting for each to be gone; Parallel does both without waiting.
// - RollingUpdate deletes, from the highest ordinal down to `partition`, one pod not at the update
//   revision at a time, waiting for the replaced pod to be healthy; OnDelete leaves that to users.
//   maxUnavailable is ignored, as kube does while its MaxUnavailableStatefulSet gate is off.
// - Failed or Succeeded pods are deleted and made again. PVCs from volumeClaimTemplates are
//   created before their pod and kept, or owned per persistentVolumeClaimRetentionPolicy.
// - status: replicas, readyReplicas, currentReplicas, updatedReplicas, availableReplicas,
//   observedGeneration, currentRevision, updateRevision and collisionCount; a finished rolling
//   update makes the update revision current (completeRollingUpdate).
// - Events as stateful_pod_control.go words them ("create Pod web-0 in StatefulSet web successful").
//
// Not done: changing hostname/subdomain/volumes of existing pods whose identity drifted (the pod
// spec fields are immutable here as in kube; only the identity labels are restored).
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import type { Change, Storage } from '../../../storage/storage.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { ChangeDrivenController } from '../../change-driven.ts';
import { EventRecorder } from '../../events.ts';
import {
  AvailabilityCount,
  claim,
  controllerRef,
  deleteExactly,
  errorCode,
  int,
  isNamespaceTerminating,
  listObjects,
  parseObject,
  retryAfterBackoff,
  selectorMatcher,
  syncBackoff,
  writeStatusUnlessWritten,
  type WorkloadObject,
} from '../common.ts';
import {
  claimName,
  claimOwners,
  claimTemplates,
  identityLabelsMatch,
  inOrdinalRange,
  isFailedOrSucceeded,
  isHealthy,
  isMemberOf,
  isRunningAndReady,
  isTerminating,
  newClaim,
  newPod,
  ordinalOf,
  POD_INDEX_LABEL,
  POD_NAME_LABEL,
  podRevision,
  replicaCount,
  runningAndAvailable,
  startOrdinal,
  withClaimOwners,
} from './identity.ts';
import { applyRevision, dataKey, nextRevision, revisionData, sortRevisions } from '../history.ts';
import { newRevision, revisionsToDelete } from './revisions.ts';
import { OwnerRouting } from '../routing.ts';
import { deepEqual } from '../../../../apimachinery/json/index.ts';

const COMPONENT = 'statefulset-controller';
const ctx = internalContext(COMPONENT);
const STS_PREFIX = '/apps/statefulsets/';
const POD_PREFIX = '/core/pods/';
const REVISION_PREFIX = '/apps/controllerrevisions/';

interface Revisions {
  current: WorkloadObject;
  update: WorkloadObject;
  collisionCount: number;
  all: WorkloadObject[];
}

export class StatefulSetController extends ChangeDrivenController {
  private readonly stsDef: ResourceDef;
  private readonly podsDef: ResourceDef;
  private readonly pvcDef: ResourceDef;
  private readonly revisionDef: ResourceDef;
  private readonly events: EventRecorder;
  private readonly backoff = syncBackoff();
  private readonly routing: OwnerRouting;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(COMPONENT, storage, store, catalog);
    this.stsDef = catalog.lookup('apps', 'v1', 'statefulsets')!;
    this.podsDef = catalog.lookup('', 'v1', 'pods')!;
    this.pvcDef = catalog.lookup('', 'v1', 'persistentvolumeclaims')!;
    this.revisionDef = catalog.lookup('apps', 'v1', 'controllerrevisions')!;
    this.events = new EventRecorder(store, catalog, COMPONENT);
    this.routing = new OwnerRouting(storage, this.loop, {
      group: 'apps',
      kind: 'StatefulSet',
      prefix: STS_PREFIX,
      owned: [
        { prefix: POD_PREFIX, adoption: 'new-relabelled-or-released' },
        { prefix: REVISION_PREFIX, adoption: 'new-relabelled-or-released' },
      ],
      backoff: this.backoff,
      events: this.events,
    });
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
  }

  protected observe(c: Change): void {
    this.routing.observe(c);
  }

  // ---------------------------------------------------------------- sync

  protected async process(key: string): Promise<void> {
    const set = parseObject(this.storage.get(STS_PREFIX + key)?.json);
    if (!set) return;
    try {
      await this.sync(set);
      this.backoff.forget(key);
    } catch (e) {
      if (isNamespaceTerminating(e)) return;
      retryAfterBackoff(this.loop, this.backoff, COMPONENT, key, e);
    }
  }

  /** syncStatefulSet: claim pods and revisions, roll, write status, trim history. */
  private async sync(set: WorkloadObject): Promise<void> {
    const ns = set.metadata.namespace ?? '';
    const selector = selectorMatcher(set.spec.selector);
    // Malformed (validation keeps these out; kept or foreign storage might not): skip.
    if (!selector || selector.all || !isObject(set.spec.template) || !isObject(set.spec.template.spec)) return;
    const revisions = await claim({
      owner: set,
      ownerKind: 'StatefulSet',
      candidates: listObjects(this.storage, REVISION_PREFIX, ns),
      matches: selector.matches,
      update: (r, mutate) => this.store.updateWith(this.revisionDef, ns, r.metadata.name!, ctx, mutate),
    });
    await this.claimPods(set, selector.matches);
    const history = await this.revisions(set, revisions);
    let error: unknown;
    try {
      await this.updateStatefulSet(set, history);
    } catch (e) {
      error = e;
    }
    // Status reflects what exists now, whatever the roll managed to do.
    const pods = await this.claimPods(set, selector.matches);
    await this.writeStatus(set, history, pods);
    await this.truncateHistory(set, history, pods);
    if (error !== undefined) throw error;
  }

  /** ClaimPods, restricted to pods named `<set>-<ordinal>` (isMemberOf). */
  private claimPods(set: WorkloadObject, matches: (l: Record<string, string>) => boolean): Promise<WorkloadObject[]> {
    const ns = set.metadata.namespace ?? '';
    return claim({
      owner: set,
      ownerKind: 'StatefulSet',
      candidates: listObjects(this.storage, POD_PREFIX, ns).filter((p) => isMemberOf(set, p)),
      matches,
      update: (p, mutate) => this.store.updateWith(this.podsDef, ns, p.metadata.name!, ctx, mutate),
    });
  }

  /** getStatefulSetRevisions. */
  private async revisions(set: WorkloadObject, claimed: WorkloadObject[]): Promise<Revisions> {
    const all = sortRevisions(claimed);
    let collisionCount = int(set.status.collisionCount);
    const wanted = dataKey(revisionData(set));
    const equal = all.filter((r) => dataKey(r.data) === wanted);
    let update: WorkloadObject;
    const latest = all[all.length - 1];
    if (equal.length > 0 && equal[equal.length - 1] === latest) update = latest;
    else if (equal.length > 0) {
      // Back to an older template: that revision becomes the newest.
      const revision = nextRevision(all);
      const eq = equal[equal.length - 1];
      const written = await this.store.updateWith(
        this.revisionDef,
        eq.metadata.namespace,
        eq.metadata.name!,
        ctx,
        (fresh) => {
          fresh.revision = revision;
          return fresh;
        },
      );
      update = parseObject(JSON.stringify(written)) ?? { ...eq, revision };
      all.splice(all.indexOf(eq), 1);
      all.push(update);
    } else {
      ({ revision: update, collisionCount } = await this.createRevision(set, nextRevision(all), collisionCount));
      all.push(update);
    }
    const current = all.find((r) => r.metadata.name === set.status.currentRevision) ?? update;
    return { current, update, collisionCount, all };
  }

  /** history.CreateControllerRevision: a name taken by other data bumps collisionCount and retries. */
  private async createRevision(
    set: WorkloadObject,
    revision: number,
    collisionCount: number,
  ): Promise<{ revision: WorkloadObject; collisionCount: number }> {
    const ns = set.metadata.namespace;
    for (;;) {
      const cr = newRevision(set, revision, collisionCount);
      try {
        const created = await this.store.create(this.revisionDef, ns, cr, ctx);
        return { revision: parseObject(JSON.stringify(created))!, collisionCount };
      } catch (e) {
        if (errorCode(e) !== 409) throw e;
        const name = String((cr.metadata as ObjectMeta).name);
        const existing = parseObject(this.storage.get(`${REVISION_PREFIX}${ns}/${name}`)?.json);
        if (
          existing &&
          dataKey(existing.data) === dataKey(cr.data) &&
          controllerRef(existing.metadata)?.uid === set.metadata.uid
        )
          return { revision: existing, collisionCount };
        collisionCount++;
      }
    }
  }

  /** updateStatefulSet: create, repair, scale down and roll, in kube's order. */
  private async updateStatefulSet(set: WorkloadObject, history: Revisions): Promise<void> {
    if (set.metadata.deletionTimestamp) return;
    const currentSet = applyRevision(set, history.current);
    const updateSet = applyRevision(set, history.update);
    const start = startOrdinal(set);
    const count = replicaCount(set);
    const pods = listObjects(this.storage, POD_PREFIX, set.metadata.namespace ?? '').filter(
      (p) => isMemberOf(set, p) && controllerRef(p.metadata)?.uid === set.metadata.uid,
    );
    const replicas: (WorkloadObject | undefined)[] = new Array<WorkloadObject | undefined>(count).fill(undefined);
    const condemned: WorkloadObject[] = [];
    for (const p of pods) {
      const ord = ordinalOf(p);
      if (inOrdinalRange(set, p)) replicas[ord - start] = p;
      else if (ord >= 0) condemned.push(p);
    }
    condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    const firstUnhealthy =
      replicas.find((p) => p !== undefined && !isHealthy(p)) ?? [...condemned].reverse().find((p) => !isHealthy(p));
    const monotonic = set.spec.podManagementPolicy !== 'Parallel';
    const minReady = int(set.spec.minReadySeconds);
    const now = Date.now();

    for (let i = 0; i < count; i++) {
      const pod = replicas[i];
      const ordinal = start + i;
      if (pod === undefined) {
        // newVersionedStatefulSetPod: ordinals below the partition (or, without rollingUpdate,
        // below status.currentReplicas) are made at the current revision.
        const ru = isObject(set.spec.updateStrategy) ? set.spec.updateStrategy : {};
        const rolling = isObject(ru.rollingUpdate) ? ru.rollingUpdate : undefined;
        const atCurrent =
          (ru.type === 'RollingUpdate' && !rolling && ordinal < start + int(set.status.currentReplicas)) ||
          (rolling !== undefined && ordinal < start + int(rolling.partition));
        const [from, revision] = atCurrent ? [currentSet, history.current] : [updateSet, history.update];
        await this.createPod(from, ordinal, revision.metadata.name!);
        if (monotonic) return;
        continue;
      }
      if (isFailedOrSucceeded(pod)) {
        // Made again on the sync after it is gone.
        if (!isTerminating(pod)) await this.deletePod(set, pod);
        if (monotonic) return;
        continue;
      }
      if (phaseIsPending(pod)) await this.createMissingClaims(set, pod);
      if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod))) return;
      if (monotonic && runningAndAvailable(pod, minReady, now) !== true) return;
      if (!identityLabelsMatch(set, pod)) await this.restoreIdentity(set, pod);
    }

    for (const p of condemned) await this.fixClaimOwners(set, p, true);

    // Scale down, highest ordinal first; OrderedReady waits for each to be gone.
    for (const p of condemned) {
      if (isTerminating(p)) {
        if (monotonic) return;
        continue;
      }
      // processCondemned: an unhealthy pod is deleted only when it is the first unhealthy one.
      if (
        monotonic &&
        p !== firstUnhealthy &&
        (!isRunningAndReady(p) || runningAndAvailable(p, minReady, now) !== true)
      )
        return;
      await this.deletePod(set, p);
      if (monotonic) return;
    }

    const strategy = isObject(set.spec.updateStrategy) ? set.spec.updateStrategy : {};
    if (strategy.type === 'OnDelete') return;
    const updateMin = isObject(strategy.rollingUpdate) ? int(strategy.rollingUpdate.partition) : 0;
    for (let target = replicas.length - 1; target >= updateMin; target--) {
      const pod = replicas[target];
      if (pod === undefined) return;
      if (podRevision(pod) !== history.update.metadata.name && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        return;
      }
      if (!isHealthy(pod)) return;
    }
  }

  // ---------------------------------------------------------------- pods and claims

  /** CreateStatefulPod: its claims first, then the pod. */
  private async createPod(set: WorkloadObject, ordinal: number, revision: string): Promise<void> {
    const pod = newPod(set, ordinal, revision);
    const name = String((pod.metadata as ObjectMeta).name);
    await this.createClaims(set, ordinal, name);
    try {
      await this.store.create(this.podsDef, set.metadata.namespace, pod, ctx);
    } catch (e) {
      if (isNamespaceTerminating(e)) throw e;
      await this.event(
        set,
        'Warning',
        'FailedCreate',
        `create Pod ${name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`,
      );
      throw e;
    }
    await this.event(
      set,
      'Normal',
      'SuccessfulCreate',
      `create Pod ${name} in StatefulSet ${set.metadata.name} successful`,
    );
  }

  private async createClaims(set: WorkloadObject, ordinal: number, podName: string): Promise<void> {
    const ns = set.metadata.namespace;
    for (const template of claimTemplates(set)) {
      const name = claimName(set, template, ordinal);
      if (this.store.getStored(this.pvcDef, ns, name)) continue;
      const pvc = newClaim(set, template, ordinal);
      const refs = withClaimOwners(undefined, set, undefined, claimOwners(set, undefined, false));
      if (refs) (pvc.metadata as ObjectMeta).ownerReferences = refs;
      try {
        await this.store.create(this.pvcDef, ns, pvc, ctx);
      } catch (e) {
        if (errorCode(e) === 409) continue;
        if (isNamespaceTerminating(e)) throw e;
        await this.event(
          set,
          'Warning',
          'FailedCreate',
          `create Claim ${name} for Pod ${podName} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`,
        );
        throw e;
      }
      await this.event(
        set,
        'Normal',
        'SuccessfulCreate',
        `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata.name} success`,
      );
    }
  }

  /** createMissingPersistentVolumeClaims for a Pending pod. */
  private createMissingClaims(set: WorkloadObject, pod: WorkloadObject): Promise<void> {
    return this.createClaims(set, ordinalOf(pod), pod.metadata.name!);
  }

  /** fixPodClaim: the owner references the retention policy wants on a pod's claims. */
  private async fixClaimOwners(set: WorkloadObject, pod: WorkloadObject, scaledDown: boolean): Promise<void> {
    const ns = set.metadata.namespace;
    const owners = claimOwners(set, pod, scaledDown);
    for (const template of claimTemplates(set)) {
      const name = claimName(set, template, ordinalOf(pod));
      const stored = parseObject(this.store.getStored(this.pvcDef, ns, name)?.json);
      if (!stored || !withClaimOwners(stored.metadata.ownerReferences, set, pod, owners)) continue;
      await this.store.updateWith(this.pvcDef, ns, name, ctx, (fresh) => {
        const m = fresh.metadata as ObjectMeta;
        const refs = withClaimOwners(m.ownerReferences, set, pod, owners);
        if (!refs) return undefined;
        if (refs.length > 0) m.ownerReferences = refs;
        else delete m.ownerReferences;
        return fresh;
      });
    }
  }

  private async restoreIdentity(set: WorkloadObject, pod: WorkloadObject): Promise<void> {
    await this.store.updateWith(this.podsDef, pod.metadata.namespace, pod.metadata.name!, ctx, (fresh) => {
      const m = fresh.metadata as ObjectMeta;
      if (m.uid !== pod.metadata.uid) return undefined;
      m.labels = {
        ...(m.labels ?? {}),
        [POD_NAME_LABEL]: pod.metadata.name!,
        [POD_INDEX_LABEL]: String(ordinalOf(pod)),
      };
      return fresh;
    });
    await this.event(
      set,
      'Normal',
      'SuccessfulUpdate',
      `update Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
    );
  }

  private async deletePod(set: WorkloadObject, pod: WorkloadObject): Promise<void> {
    let deleted: boolean;
    try {
      deleted = await deleteExactly(this.store, this.podsDef, pod.metadata, ctx);
    } catch (e) {
      await this.event(
        set,
        'Warning',
        'FailedDelete',
        `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(e as Error).message}`,
      );
      throw e;
    }
    if (!deleted) return;
    await this.event(
      set,
      'Normal',
      'SuccessfulDelete',
      `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
    );
  }

  // ---------------------------------------------------------------- status and history

  /** computeReplicaStatus + completeRollingUpdate + updateStatefulSetStatus. */
  private async writeStatus(set: WorkloadObject, history: Revisions, pods: WorkloadObject[]): Promise<void> {
    const minReady = int(set.spec.minReadySeconds);
    const now = Date.now();
    let replicas = 0;
    let current = 0;
    let updated = 0;
    const count = new AvailabilityCount();
    for (const p of pods) {
      replicas++;
      count.add(runningAndAvailable(p, minReady, now));
      if (!isTerminating(p)) {
        if (podRevision(p) === history.current.metadata.name) current++;
        if (podRevision(p) === history.update.metadata.name) updated++;
      }
    }
    const { ready, available, recheckIn } = count;
    let currentRevision = history.current.metadata.name!;
    const strategy = isObject(set.spec.updateStrategy) ? set.spec.updateStrategy : {};
    if (strategy.type === 'RollingUpdate' && updated === replicas && ready === replicas) {
      current = updated;
      currentRevision = history.update.metadata.name!;
    }
    // Go's field order and omitempty (apps/v1 StatefulSetStatus).
    const status: JsonObject = {};
    if (int(set.metadata.generation) > 0) status.observedGeneration = int(set.metadata.generation);
    status.replicas = replicas;
    if (ready) status.readyReplicas = ready;
    if (current) status.currentReplicas = current;
    if (updated) status.updatedReplicas = updated;
    status.currentRevision = currentRevision;
    status.updateRevision = history.update.metadata.name!;
    status.collisionCount = history.collisionCount;
    if (Array.isArray(set.status.conditions) && set.status.conditions.length > 0)
      status.conditions = set.status.conditions;
    status.availableReplicas = available;
    for (const [k, v] of Object.entries(set.status)) if (!(k in status) && !KNOWN_STATUS.has(k)) status[k] = v;

    if (!deepEqual(status, set.status)) await writeStatusUnlessWritten(this.store, this.stsDef, set, ctx, status);
    if (recheckIn !== undefined) this.loop.addAfter(`${set.metadata.namespace}/${set.metadata.name}`, recheckIn);
  }

  private async truncateHistory(set: WorkloadObject, history: Revisions, pods: WorkloadObject[]): Promise<void> {
    const live = new Set([history.current.metadata.name!, history.update.metadata.name!, ...pods.map(podRevision)]);
    for (const r of revisionsToDelete(set, sortRevisions(history.all), live)) {
      await deleteExactly(this.store, this.revisionDef, r.metadata, ctx);
    }
  }

  private async event(set: WorkloadObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.events.recordBestEffort(
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: set.metadata },
      type,
      reason,
      message,
    );
  }
}

function phaseIsPending(pod: WorkloadObject): boolean {
  return pod.status.phase === 'Pending';
}

/** Status fields this controller owns; others (written by newer clients) are kept. */
const KNOWN_STATUS = new Set([
  'observedGeneration',
  'replicas',
  'readyReplicas',
  'currentReplicas',
  'updatedReplicas',
  'currentRevision',
  'updateRevision',
  'collisionCount',
  'conditions',
  'availableReplicas',
]);
