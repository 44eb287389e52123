// The Deployment controller's strategies, as kube's pkg/controller/deployment does them:
// rolling.go (RollingUpdate), recreate.go (Recreate), sync.go (scaling, paused deployments,
// revision-history cleanup, status) and progress.go (the Progressing condition and its deadline).
// The reads and writes they need come from the controller (controller.ts).
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { ChangeDrivenController } from '../../change-driven.ts';
import { byCreation, int, type WorkloadObject } from '../common.ts';
import {
  active,
  bySize,
  isRollingUpdate,
  isSaturated,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  progressDeadline,
  proportion,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  revisionHistoryLimit,
  revisionOf,
  rsReplicas,
  statusInt,
  sumSpec,
  sumStatus,
} from './util.ts';
import {
  calculateStatus,
  getCondition,
  hasTimedOut,
  isComplete,
  isProgressing,
  newCondition,
  normalizeStatus,
  removeCondition,
  setCondition,
} from './status.ts';
import { deepEqual } from '../../../../apimachinery/json/index.ts';

export interface ReplicaSets {
  newRS?: WorkloadObject;
  oldRSs: WorkloadObject[];
}

export abstract class DeploymentRollout extends ChangeDrivenController {
  /** FindNewReplicaSet / FindOldReplicaSets, syncing revisions; creates the new RS when `create`. */
  protected abstract getAllReplicaSetsAndSyncRevision(
    d: WorkloadObject,
    rsList: WorkloadObject[],
    create: boolean,
  ): Promise<ReplicaSets>;
  /** Writes spec.replicas and the replica annotations; `rs` is refreshed in place. */
  protected abstract writeReplicaSetScale(rs: WorkloadObject, d: WorkloadObject, newScale: number): Promise<void>;
  protected abstract writeDeploymentStatus(d: WorkloadObject, status: JsonObject): Promise<void>;
  protected abstract deleteReplicaSet(rs: WorkloadObject): Promise<void>;
  /** oldPodsRunning: an old RS still has pods, or a pod of one is not terminal (deleted or not). */
  protected abstract oldPodsRunning(newRS: WorkloadObject | undefined, oldRSs: WorkloadObject[]): boolean;
  protected abstract recordScaling(d: WorkloadObject, message: string): Promise<void>;

  private keyOf(d: WorkloadObject): string {
    return `${d.metadata.namespace}/${d.metadata.name}`;
  }

  // ---------------------------------------------------------------- scaling (sync.go)

  /** scaleReplicaSet: true when the size changed. */
  protected async scaleReplicaSet(
    rs: WorkloadObject,
    newScale: number,
    d: WorkloadObject,
    operation: string,
  ): Promise<boolean> {
    const oldScale = rsReplicas(rs);
    const sizeNeedsUpdate = oldScale !== newScale;
    const max = replicasOf(d) + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, replicasOf(d), max)) return false;
    await this.writeReplicaSetScale(rs, d, newScale);
    if (sizeNeedsUpdate)
      await this.recordScaling(
        d,
        `Scaled ${operation} replica set ${rs.metadata.name} from ${oldScale} to ${newScale}`,
      );
    return sizeNeedsUpdate;
  }

  protected async scaleReplicaSetAndRecordEvent(rs: WorkloadObject, newScale: number, d: WorkloadObject) {
    if (rsReplicas(rs) === newScale) return false;
    return this.scaleReplicaSet(rs, newScale, d, rsReplicas(rs) < newScale ? 'up' : 'down');
  }

  /** sync: scaling events and paused deployments — no rollout, only sizes and status. */
  protected async syncScale(d: WorkloadObject, rsList: WorkloadObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    await this.scale(d, newRS, oldRSs);
    if (d.spec.paused === true) await this.cleanupDeployment(oldRSs, d);
    await this.syncDeploymentStatus(withNew(oldRSs, newRS), newRS, d);
  }

  /** scale: the deployment's size changed; spread the change over the active replica sets. */
  private async scale(d: WorkloadObject, newRS: WorkloadObject | undefined, oldRSs: WorkloadObject[]): Promise<void> {
    const desired = replicasOf(d);
    const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
    if (activeOrLatest) {
      if (rsReplicas(activeOrLatest) !== desired) await this.scaleReplicaSetAndRecordEvent(activeOrLatest, desired, d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of active(oldRSs)) await this.scaleReplicaSetAndRecordEvent(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const all = active(withNew(oldRSs, newRS));
    const allowed = desired > 0 ? desired + maxSurge(d) : 0;
    const toAdd = allowed - sumSpec(all);
    let operation = '';
    if (toAdd > 0) {
      all.sort(bySize(true));
      operation = 'up';
    } else if (toAdd < 0) {
      all.sort(bySize(false));
      operation = 'down';
    }
    let added = 0;
    const sizes = new Map<WorkloadObject, number>();
    for (const rs of all) {
      if (toAdd === 0) {
        sizes.set(rs, rsReplicas(rs));
        continue;
      }
      const p = proportion(rs, d, toAdd, added);
      sizes.set(rs, rsReplicas(rs) + p);
      added += p;
    }
    for (const [i, rs] of all.entries()) {
      if (i === 0 && toAdd !== 0) sizes.set(rs, Math.max(0, sizes.get(rs)! + toAdd - added));
      await this.scaleReplicaSet(rs, sizes.get(rs)!, d, operation);
    }
  }

  /** cleanupDeployment: old replica sets beyond revisionHistoryLimit, oldest revisions first. */
  protected async cleanupDeployment(oldRSs: WorkloadObject[], d: WorkloadObject): Promise<void> {
    const limit = revisionHistoryLimit(d);
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of cleanable.slice(0, diff)) {
      // Only replica sets that are down to nothing, and known to be.
      if (statusInt(rs, 'replicas') !== 0 || rsReplicas(rs) !== 0) continue;
      if (int(rs.metadata.generation) > statusInt(rs, 'observedGeneration')) continue;
      await this.deleteReplicaSet(rs);
    }
  }

  /** syncDeploymentStatus: status without touching the Progressing condition. */
  protected async syncDeploymentStatus(
    all: WorkloadObject[],
    newRS: WorkloadObject | undefined,
    d: WorkloadObject,
  ): Promise<void> {
    const status = calculateStatus(d, all, newRS);
    if (deepEqual(normalizeStatus(d.status), status)) return;
    await this.writeDeploymentStatus(d, status);
  }

  // ---------------------------------------------------------------- progress.go

  /** syncRolloutStatus: status with the Progressing condition, and the deadline check. */
  protected async syncRolloutStatus(
    all: WorkloadObject[],
    newRS: WorkloadObject | undefined,
    d: WorkloadObject,
  ): Promise<void> {
    const status = calculateStatus(d, all, newRS);
    const deadline = progressDeadline(d);
    if (deadline === undefined) removeCondition(status, 'Progressing');
    const current = getCondition(d.status, 'Progressing');
    const complete =
      int(status.replicas) === int(status.updatedReplicas) && current?.reason === 'NewReplicaSetAvailable';
    if (deadline !== undefined && !complete) {
      const what = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
      if (isComplete(d, status)) {
        setCondition(
          status,
          newCondition('Progressing', 'True', 'NewReplicaSetAvailable', `${what} has successfully progressed.`),
        );
      } else if (isProgressing(d, status)) {
        const cond = newCondition('Progressing', 'True', 'ReplicaSetUpdated', `${what} is progressing.`);
        // Progress refreshes lastUpdateTime; lastTransitionTime stays while the status stays True.
        if (current?.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, 'Progressing');
        setCondition(status, cond);
      } else if (hasTimedOut(d, status)) {
        setCondition(
          status,
          newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', `${what} has timed out progressing.`),
        );
      }
    }
    const failure = replicaFailure(all, newRS);
    if (failure) setCondition(status, failure);
    else removeCondition(status, 'ReplicaFailure');
    const normalized = normalizeStatus(status);
    if (deepEqual(normalizeStatus(d.status), normalized)) {
      this.requeueStuckDeployment(d, normalized);
      return;
    }
    await this.writeDeploymentStatus(d, normalized);
  }

  /** requeueStuckDeployment: look again when the progress deadline would pass. */
  private requeueStuckDeployment(d: WorkloadObject, status: JsonObject): void {
    const deadline = progressDeadline(d);
    const current = getCondition(d.status, 'Progressing');
    if (deadline === undefined || !current) return;
    if (isComplete(d, status) || current.reason === 'ProgressDeadlineExceeded') return;
    if (current.reason === 'NewReplicaSetAvailable') return;
    const from = Date.parse(current.lastUpdateTime);
    if (Number.isNaN(from)) return;
    const after = from + deadline * 1000 - Date.now();
    this.loop.addAfter(this.keyOf(d), Math.max(1000, after + 1000));
  }

  // ---------------------------------------------------------------- rolling.go

  protected async rolloutRolling(d: WorkloadObject, rsList: WorkloadObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, true);
    const all = withNew(oldRSs, newRS);
    if (newRS && (await this.reconcileNewReplicaSet(all, newRS, d))) return this.syncRolloutStatus(all, newRS, d);
    if (await this.reconcileOldReplicaSets(all, active(oldRSs), newRS, d)) return this.syncRolloutStatus(all, newRS, d);
    if (isComplete(d, d.status)) await this.cleanupDeployment(oldRSs, d);
    return this.syncRolloutStatus(all, newRS, d);
  }

  private async reconcileNewReplicaSet(
    all: WorkloadObject[],
    newRS: WorkloadObject,
    d: WorkloadObject,
  ): Promise<boolean> {
    const desired = replicasOf(d);
    if (rsReplicas(newRS) === desired) return false;
    if (rsReplicas(newRS) > desired) return this.scaleReplicaSetAndRecordEvent(newRS, desired, d);
    return this.scaleReplicaSetAndRecordEvent(newRS, newRSNewReplicas(d, all, newRS), d);
  }

  private async reconcileOldReplicaSets(
    all: WorkloadObject[],
    oldRSs: WorkloadObject[],
    newRS: WorkloadObject | undefined,
    d: WorkloadObject,
  ): Promise<boolean> {
    if (sumSpec(oldRSs) === 0) return false;
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const newUnavailable = newRS ? Math.max(0, rsReplicas(newRS) - statusInt(newRS, 'availableReplicas')) : 0;
    const maxScaledDown = sumSpec(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // Unhealthy old replicas go first: removing them costs no availability.
    const cleaned = await this.cleanupUnhealthyReplicas(oldRSs, d, maxScaledDown);
    const scaled = await this.scaleDownOldReplicaSetsForRollingUpdate(withNew(oldRSs, newRS), oldRSs, d);
    return cleaned + scaled > 0;
  }

  private async cleanupUnhealthyReplicas(oldRSs: WorkloadObject[], d: WorkloadObject, max: number): Promise<number> {
    let total = 0;
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (total >= max) break;
      const unhealthy = rsReplicas(rs) - statusInt(rs, 'availableReplicas');
      if (rsReplicas(rs) === 0 || unhealthy <= 0) continue;
      const count = Math.min(max - total, unhealthy);
      await this.scaleReplicaSetAndRecordEvent(rs, rsReplicas(rs) - count, d);
      total += count;
    }
    return total;
  }

  private async scaleDownOldReplicaSetsForRollingUpdate(
    all: WorkloadObject[],
    oldRSs: WorkloadObject[],
    d: WorkloadObject,
  ): Promise<number> {
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const availableCount = sumStatus(all, 'availableReplicas');
    if (availableCount <= minAvailable) return 0;
    const totalScaleDown = availableCount - minAvailable;
    let total = 0;
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (total >= totalScaleDown) break;
      if (rsReplicas(rs) === 0) continue;
      const count = Math.min(rsReplicas(rs), totalScaleDown - total);
      await this.scaleReplicaSetAndRecordEvent(rs, rsReplicas(rs) - count, d);
      total += count;
    }
    return total;
  }

  // ---------------------------------------------------------------- recreate.go

  protected async rolloutRecreate(d: WorkloadObject, rsList: WorkloadObject[]): Promise<void> {
    let { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    let all = withNew(oldRSs, newRS);
    let scaledDown = false;
    for (const rs of active(oldRSs)) if (await this.scaleReplicaSetAndRecordEvent(rs, 0, d)) scaledDown = true;
    if (scaledDown) return this.syncRolloutStatus(all, newRS, d);
    // Old pods first have to be gone (or at least no longer running): never both at once.
    if (this.oldPodsRunning(newRS, oldRSs)) return this.syncRolloutStatus(all, newRS, d);
    if (!newRS) {
      ({ newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, true));
      all = withNew(oldRSs, newRS);
    }
    if (newRS) await this.scaleReplicaSetAndRecordEvent(newRS, replicasOf(d), d);
    if (isComplete(d, d.status)) await this.cleanupDeployment(oldRSs, d);
    return this.syncRolloutStatus(all, newRS, d);
  }
}

export function withNew(oldRSs: WorkloadObject[], newRS: WorkloadObject | undefined): WorkloadObject[] {
  return newRS ? [...oldRSs, newRS] : [...oldRSs];
}

/** FindActiveOrLatest: the only RS with replicas, or the newest when none has any. */
function findActiveOrLatest(newRS: WorkloadObject | undefined, oldRSs: WorkloadObject[]): WorkloadObject | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const act = active(withNew(newestFirst, newRS));
  if (act.length === 0) return newRS ?? newestFirst[0];
  return act.length === 1 ? act[0] : undefined;
}

/** getReplicaFailures: the new RS's ReplicaFailure condition first, else any old one's. */
function replicaFailure(all: WorkloadObject[], newRS: WorkloadObject | undefined) {
  for (const rs of newRS ? [newRS, ...all] : all) {
    const c = getCondition(rs.status, 'ReplicaFailure');
    if (c) {
      const t = typeof c.lastTransitionTime === 'string' ? c.lastTransitionTime : '';
      return {
        type: 'ReplicaFailure',
        status: String(c.status),
        lastUpdateTime: t,
        lastTransitionTime: t,
        reason: String(c.reason ?? ''),
        message: String(c.message ?? ''),
      };
    }
  }
  return undefined;
}
