// How the Deployment controller finds, creates and writes its ReplicaSets and writes the
// Deployment itself: getNewReplicaSet (the RS whose template is the Deployment's, created when
// missing, named `<deployment>-<pod-template-hash>`), revisions, scaling writes, deletion and the
// ScalingReplicaSet events. Deployment writes are made against the version the sync read: if it
// changed since, StaleRead ends the sync and the (already queued) next one starts over.
import type { Storage } from '../../../storage/storage.ts';
import type { JsonObject, ObjectMeta } from '../../../../apimachinery/meta/index.ts';
import type { ResourceCatalog } from '../../../registry/catalog.ts';
import { internalContext } from '../../../registry/context.ts';
import type { ResourceDef } from '../../../registry/resource.ts';
import type { ObjectStore } from '../../../registry/store/index.ts';
import { isObject } from '../../../../apimachinery/json/index.ts';
import { EventRecorder } from '../../events.ts';
import { withNew, type ReplicaSets } from './rollout.ts';
import {
  byCreation,
  controllerRef,
  deleteExactly,
  errorCode,
  int,
  isNamespaceTerminating,
  labelsOf,
  ownerRefTo,
  parseObject,
  replaceInPlace,
  StaleRead,
  type WorkloadObject,
} from '../common.ts';
import {
  computeHash,
  equalIgnoreHash,
  HASH_LABEL,
  maxRevision,
  maxSurge,
  newRSNewReplicas,
  progressDeadline,
  REVISION,
  replicasOf,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './util.ts';
import { getCondition, newCondition, setCondition } from './status.ts';

const COMPONENT = 'deployment-controller';
const ctx = internalContext(COMPONENT);
const RS_PREFIX = '/apps/replicasets/';

export class DeploymentReplicaSets {
  private readonly deployDef: ResourceDef;
  private readonly rsDef: ResourceDef;
  private readonly events: EventRecorder;

  constructor(
    private readonly storage: Storage,
    private readonly store: ObjectStore,
    catalog: ResourceCatalog,
  ) {
    this.deployDef = catalog.lookup('apps', 'v1', 'deployments')!;
    this.rsDef = catalog.lookup('apps', 'v1', 'replicasets')!;
    this.events = new EventRecorder(store, catalog, COMPONENT);
  }

  /** Drops event aggregation state of a Deployment that is gone. */
  forget(namespace: string, name: string): void {
    this.events.forget(namespace, name);
  }

  /** getAllReplicaSetsAndSyncRevision: FindNewReplicaSet (oldest with the template) and the old ones. */
  async getAll(d: WorkloadObject, rsList: WorkloadObject[], create: boolean): Promise<ReplicaSets> {
    const existing = [...rsList].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
    const oldRSs = rsList.filter((rs) => rs !== existing);
    const newRS = await this.getNewReplicaSet(d, existing, oldRSs, create);
    return { newRS, oldRSs };
  }

  /** getNewReplicaSet: syncs the existing new RS's annotations, or creates it. */
  private async getNewReplicaSet(
    d: WorkloadObject,
    existing: WorkloadObject | undefined,
    oldRSs: WorkloadObject[],
    create: boolean,
  ): Promise<WorkloadObject | undefined> {
    const newRevision = maxRevision(oldRSs) + 1;
    const minReady = int(d.spec.minReadySeconds);
    if (existing) {
      const copy = structuredClone(existing);
      const annotationsChanged = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      if (annotationsChanged || int(existing.spec.minReadySeconds) !== minReady) {
        await this.updateReplicaSet(existing, (fresh) => {
          fresh.metadata.annotations = copy.metadata.annotations;
          fresh.spec.minReadySeconds = minReady;
        });
        return existing;
      }
      const revision = existing.metadata.annotations?.[REVISION];
      if (revision !== undefined) await this.setDeploymentRevision(d, revision);
      if (progressDeadline(d) !== undefined && !getCondition(d.status, 'Progressing')) {
        const status = structuredClone(d.status);
        const msg = `Found new replica set "${existing.metadata.name}"`;
        setCondition(status, newCondition('Progressing', 'True', 'FoundNewReplicaSet', msg));
        await this.writeDeploymentStatus(d, status);
      }
      return existing;
    }
    if (!create) return undefined;
    return this.createNewReplicaSet(d, oldRSs, newRevision, minReady);
  }

  private async createNewReplicaSet(
    d: WorkloadObject,
    oldRSs: WorkloadObject[],
    newRevision: number,
    minReady: number,
  ): Promise<WorkloadObject> {
    const ns = d.metadata.namespace ?? '';
    const collisionCount = typeof d.status.collisionCount === 'number' ? d.status.collisionCount : undefined;
    const hash = computeHash(d.spec.template, collisionCount);
    const template = structuredClone(d.spec.template as JsonObject);
    const tmeta = (isObject(template.metadata) ? template.metadata : (template.metadata = {})) as ObjectMeta;
    tmeta.labels = { ...labelsOf(template), [HASH_LABEL]: hash };
    const selector = structuredClone(d.spec.selector as JsonObject);
    selector.matchLabels = { ...(isObject(selector.matchLabels) ? selector.matchLabels : {}), [HASH_LABEL]: hash };
    const name = `${d.metadata.name}-${hash}`;
    const rs: WorkloadObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: ns, labels: { ...tmeta.labels }, ownerReferences: [ownerRefTo('Deployment', d)] },
      spec: { replicas: 0, minReadySeconds: minReady, selector, template },
      status: {},
    };
    rs.spec.replicas = newRSNewReplicas(d, withNew(oldRSs, rs), rs);
    setNewReplicaSetAnnotations(d, rs, newRevision, false);
    delete (rs as { status?: unknown }).status;

    let created: WorkloadObject | undefined;
    let alreadyExists = false;
    try {
      created = parseObject(JSON.stringify(await this.store.create(this.rsDef, ns, rs, ctx)));
    } catch (e) {
      if (errorCode(e) !== 409) {
        if (isNamespaceTerminating(e)) throw e;
        const msg = `Failed to create new replica set "${name}": ${(e as Error).message}`;
        if (progressDeadline(d) !== undefined) {
          const status = structuredClone(d.status);
          setCondition(status, newCondition('Progressing', 'False', 'ReplicaSetCreateError', msg));
          await this.writeDeploymentStatus(d, status).catch(() => undefined);
        }
        await this.event(d, 'Warning', 'ReplicaSetCreateError', msg);
        throw e;
      }
      alreadyExists = true;
      const found = parseObject(this.storage.get(`${RS_PREFIX}${ns}/${name}`)?.json);
      if (
        found &&
        controllerRef(found.metadata)?.uid === d.metadata.uid &&
        equalIgnoreHash(found.spec.template, d.spec.template)
      ) {
        created = found;
      } else {
        // A hash collision: another template has this name. Bump collisionCount and retry.
        await this.writeDeploymentStatus(d, { ...d.status, collisionCount: (collisionCount ?? 0) + 1 });
        throw e;
      }
    }
    if (!created) throw new Error(`replica set ${name} unreadable after create`);
    if (!alreadyExists && int(created.spec.replicas) > 0)
      await this.recordScaling(d, `Scaled up replica set ${name} from 0 to ${int(created.spec.replicas)}`);
    await this.setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && progressDeadline(d) !== undefined) {
      const status = structuredClone(d.status);
      setCondition(
        status,
        newCondition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${name}"`),
      );
      await this.writeDeploymentStatus(d, status);
    }
    return created;
  }

  private async updateReplicaSet(rs: WorkloadObject, mutate: (fresh: WorkloadObject) => void): Promise<void> {
    let applied = false;
    const written = await this.store.updateWith(this.rsDef, rs.metadata.namespace, rs.metadata.name!, ctx, (o) => {
      const fresh = parseObject(JSON.stringify(o));
      applied = fresh !== undefined && fresh.metadata.uid === rs.metadata.uid;
      if (!fresh || !applied) return undefined;
      mutate(fresh);
      return fresh as unknown as JsonObject;
    });
    if (!written || !applied) throw new StaleRead(`replica set ${rs.metadata.name}`);
    replaceInPlace(rs, written);
  }

  async writeReplicaSetScale(rs: WorkloadObject, d: WorkloadObject, newScale: number): Promise<void> {
    await this.updateReplicaSet(rs, (fresh) => {
      fresh.spec.replicas = newScale;
      setReplicasAnnotations(fresh, replicasOf(d), replicasOf(d) + maxSurge(d));
    });
  }

  async deleteReplicaSet(rs: WorkloadObject): Promise<void> {
    await deleteExactly(this.store, this.rsDef, rs.metadata, ctx);
  }

  /** Writes the Deployment `d` was read as; if it changed since, the sync starts over (StaleRead). */
  private async writeDeployment(d: WorkloadObject, mutate: (fresh: JsonObject) => void, sub?: string) {
    const rv = d.metadata.resourceVersion;
    let applied = false;
    const written = await this.store.updateWith(
      this.deployDef,
      d.metadata.namespace,
      d.metadata.name!,
      ctx,
      (fresh) => {
        applied = (fresh.metadata as ObjectMeta).resourceVersion === rv;
        if (!applied) return undefined;
        mutate(fresh);
        return fresh;
      },
      sub,
    );
    if (!written || !applied) throw new StaleRead(`deployment ${d.metadata.name}`);
    replaceInPlace(d, written);
  }

  async writeDeploymentStatus(d: WorkloadObject, status: JsonObject): Promise<void> {
    await this.writeDeployment(d, (fresh) => (fresh.status = status), 'status');
  }

  /**
   * SetDeploymentRevision, written as kube's getNewReplicaSet does with UpdateStatus (sync.go):
   * through the main resource the annotation change would bump metadata.generation.
   */
  private async setDeploymentRevision(d: WorkloadObject, revision: string): Promise<void> {
    if (d.metadata.annotations?.[REVISION] === revision) return;
    await this.writeDeployment(
      d,
      (fresh) => {
        const m = fresh.metadata as ObjectMeta;
        m.annotations = { ...(isObject(m.annotations) ? m.annotations : {}), [REVISION]: revision };
      },
      'status',
    );
  }

  async recordScaling(d: WorkloadObject, message: string): Promise<void> {
    await this.event(d, 'Normal', 'ScalingReplicaSet', message);
  }

  async event(d: WorkloadObject, type: 'Normal' | 'Warning', reason: string, message: string) {
    await this.events.recordBestEffort(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: d.metadata },
      type,
      reason,
      message,
      { aggregate: type === 'Warning' },
    );
  }
}
