// The Deployment controller (kube-controller-manager's deployment controller): one ReplicaSet per
// pod template, named `<deployment>-<pod-template-hash>`, rolled with the Recreate or RollingUpdate
// strategy (rollout.ts), revisions in `deployment.kubernetes.io/revision`, and the
// status with the Available and Progressing conditions.
//
// It reacts to its Deployments, to their ReplicaSets (a status change of one is a status change
// of the Deployment) and, for Recreate, to pods of their ReplicaSets stopping. ReplicaSets that
// match a Deployment's selector and have no controller are adopted; owned ones that no longer
// match are released. Not done: the deprecated rollbackTo annotation (kubectl rollout undo patches
// the template, which works), and pod-template hashes identical to kube's (see computeHash).
import type { Change, Storage } from '../../../storage/storage.ts';
import { isPodTerminal } from '../../../../apimachinery/core/index.ts';
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import { DeploymentRollout, withNew } from './rollout.ts';
import { DeploymentReplicaSets } from './replicasets.ts';
import {
  claim,
  controllerRef,
  int,
  isAppsV1,
  isNamespaceTerminating,
  listObjects,
  parseObject,
  phaseOf,
  retryAfterBackoff,
  selectorMatcher,
  StaleRead,
  syncBackoff,
  type WorkloadObject,
} from '../common.ts';
import { active, progressDeadline, replicasOf, statusInt } from './util.ts';
import { getCondition, newCondition, setCondition } from './status.ts';
import { OwnerRouting } from '../routing.ts';

const COMPONENT = 'deployment-controller';
const ctx = internalContext(COMPONENT);
const DEPLOY_PREFIX = '/apps/deployments/';
const RS_PREFIX = '/apps/replicasets/';
const POD_PREFIX = '/core/pods/';

export class DeploymentController extends DeploymentRollout {
  private readonly rsDef: ResourceDef;
  private readonly sets: DeploymentReplicaSets;
  private readonly backoff = syncBackoff();
  private readonly routing: OwnerRouting;

  constructor(storage: Storage, store: ObjectStore, catalog: ResourceCatalog) {
    super(COMPONENT, storage, store, catalog);
    this.rsDef = catalog.lookup('apps', 'v1', 'replicasets')!;
    this.sets = new DeploymentReplicaSets(storage, store, catalog);
    this.routing = new OwnerRouting(storage, this.loop, {
      group: 'apps',
      kind: 'Deployment',
      prefix: DEPLOY_PREFIX,
      owned: [{ prefix: RS_PREFIX, adoption: 'new-relabelled-or-released' }],
      backoff: this.backoff,
      events: this.sets,
    });
  }

  override start(): void {
    super.start();
    this.routing.enqueueAll();
  }

  // ---------------------------------------------------------------- events in

  protected observe(c: Change): void {
    if (!this.routing.observe(c) && c.key.startsWith(POD_PREFIX) && c.json.includes('"ReplicaSet"')) this.observePod(c);
  }

  /** Recreate waits for old pods to stop: a pod that stops or goes wakes its Deployment. */
  private observePod(c: Change): void {
    if (c.type === 'MODIFIED' && !/"phase":"(Succeeded|Failed)"/.test(c.json)) return;
    const pod = parseObject(c.json);
    if (!pod) return;
    if (c.type === 'MODIFIED') {
      const prev = parseObject(c.prevJson);
      if (!prev || phaseOf(prev) === phaseOf(pod) || !isPodTerminal(pod)) return;
    } else if (c.type !== 'DELETED') return;
    const ref = controllerRef(pod.metadata);
    if (!ref || !isAppsV1(ref, 'ReplicaSet')) return;
    const ns = pod.metadata.namespace ?? '';
    const rs = parseObject(this.storage.get(`${RS_PREFIX}${ns}/${ref.name}`)?.json);
    const owner = controllerRef(rs?.metadata);
    if (owner && isAppsV1(owner, 'Deployment')) this.loop.add(`${ns}/${owner.name}`);
  }

  // ---------------------------------------------------------------- sync

  protected async process(key: string): Promise<void> {
    const d = parseObject(this.storage.get(DEPLOY_PREFIX + key)?.json);
    if (!d) return;
    try {
      await this.sync(d);
      this.backoff.forget(key);
    } catch (e) {
      if (e instanceof StaleRead) {
        // The write that made it stale queued this key again; nothing was lost.
        this.loop.add(key);
        return;
      }
      // The namespace controller is deleting everything here; nothing to do.
      if (isNamespaceTerminating(e)) return;
      retryAfterBackoff(this.loop, this.backoff, COMPONENT, key, e);
    }
  }

  /** syncDeployment. */
  private async sync(d: WorkloadObject): Promise<void> {
    const selector = selectorMatcher(d.spec.selector);
    // Malformed (validation keeps these out; kept or foreign storage might not): skip.
    if (!selector || !isObject(d.spec.template)) return;
    if (selector.all) {
      // kube refuses to act on a selector that selects everything; it only observes the generation.
      if (int(d.status.observedGeneration) < int(d.metadata.generation))
        await this.writeDeploymentStatus(d, { ...d.status, observedGeneration: int(d.metadata.generation) });
      return;
    }
    const rsList = await this.claimReplicaSets(d, selector.matches);
    if (d.metadata.deletionTimestamp) {
      const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
      return this.syncDeploymentStatus(withNew(oldRSs, newRS), newRS, d);
    }
    await this.checkPausedConditions(d);
    if (d.spec.paused === true || (await this.isScalingEvent(d, rsList))) return this.syncScale(d, rsList);
    const strategy = isObject(d.spec.strategy) ? d.spec.strategy.type : undefined;
    if (strategy === 'Recreate') return this.rolloutRecreate(d, rsList);
    return this.rolloutRolling(d, rsList);
  }

  private async claimReplicaSets(
    d: WorkloadObject,
    matches: (l: Record<string, string>) => boolean,
  ): Promise<WorkloadObject[]> {
    const ns = d.metadata.namespace ?? '';
    const candidates = listObjects(this.storage, RS_PREFIX, ns).filter((rs) => isObject(rs.spec.template));
    return claim({
      owner: d,
      ownerKind: 'Deployment',
      candidates,
      matches,
      update: (rs, mutate) => this.store.updateWith(this.rsDef, ns, rs.metadata.name!, ctx, mutate),
    });
  }

  /** checkPausedConditions: Progressing Unknown with DeploymentPaused / DeploymentResumed. */
  private async checkPausedConditions(d: WorkloadObject): Promise<void> {
    if (progressDeadline(d) === undefined) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === 'ProgressDeadlineExceeded') return;
    const pausedCond = cond?.reason === 'DeploymentPaused';
    const paused = d.spec.paused === true;
    if (paused === pausedCond) return;
    const status = structuredClone(d.status);
    if (paused)
      setCondition(status, newCondition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'));
    else setCondition(status, newCondition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed'));
    await this.writeDeploymentStatus(d, status);
  }

  /** isScalingEvent: an active RS was sized for another deployment size (desired-replicas). */
  private async isScalingEvent(d: WorkloadObject, rsList: WorkloadObject[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    return active(withNew(oldRSs, newRS)).some((rs) => {
      const desired = rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'];
      return typeof desired === 'string' && /^\d+$/.test(desired) && Number(desired) !== replicasOf(d);
    });
  }

  protected getAllReplicaSetsAndSyncRevision(d: WorkloadObject, rsList: WorkloadObject[], create: boolean) {
    return this.sets.getAll(d, rsList, create);
  }

  /** oldPodsRunning (recreate.go): non-terminal pods of old replica sets count, deleted or not. */
  protected oldPodsRunning(newRS: WorkloadObject | undefined, oldRSs: WorkloadObject[]): boolean {
    if (oldRSs.some((rs) => statusInt(rs, 'replicas') > 0)) return true;
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    if (oldUids.size === 0) return false;
    const ns = (newRS ?? oldRSs[0]).metadata.namespace ?? '';
    for (const s of this.storage.list(`${POD_PREFIX}${ns}/`)) {
      const pod = parseObject(s.json);
      const ref = controllerRef(pod?.metadata);
      if (pod && ref && oldUids.has(ref.uid) && !isPodTerminal(pod)) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- writes (replicasets.ts)

  protected writeReplicaSetScale(rs: WorkloadObject, d: WorkloadObject, newScale: number): Promise<void> {
    return this.sets.writeReplicaSetScale(rs, d, newScale);
  }

  protected deleteReplicaSet(rs: WorkloadObject): Promise<void> {
    return this.sets.deleteReplicaSet(rs);
  }

  protected writeDeploymentStatus(d: WorkloadObject, status: JsonObject): Promise<void> {
    return this.sets.writeDeploymentStatus(d, status);
  }

  protected recordScaling(d: WorkloadObject, message: string): Promise<void> {
    return this.sets.recordScaling(d, message);
  }
}
