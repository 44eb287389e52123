// The write every update goes through (PUT, patch, apply, subresources, internal writes):
// carry the system fields over, admit, bump generation, validate, and store, or complete a
// pending deletion when its last finalizer went away.
import { conflict, invalid, notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, KubeObject } from '../../../apimachinery/meta/index.ts';
import { KeyNotFoundError, RevisionMismatchError, type StoredObject } from '../../storage/storage.ts';
import type { AdmissionAttributes, RequestContext } from '../context.ts';
import { hasSubresource, type ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { hasFinalizers } from './finalizers.ts';
import { isolate } from '../subresources/status.ts';
import { recordManagedFields } from './managed-fields.ts';
import { afterMutation, normalize } from './normalize.ts';
import { meta, ordered, parseStored, refOf, specPart, withoutVolatileMeta } from './objects.ts';
import { served, toStored, written } from './presentation.ts';
import type { WriteResult } from './types.ts';
import { validate } from './validate.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';

/** System fields a client cannot set through an update; they are carried over from storage. */
const SYSTEM_META = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
];

/** The stored object an update replaces, and how the update reaches it. */
export interface UpdateTarget {
  namespace: string | undefined;
  name: string;
  stored: StoredObject;
  subresource: string | undefined;
  /** Apply has computed managedFields itself. */
  operation?: 'Update' | 'Apply';
  /**
   * A write that lost a race throws RevisionMismatchError for the caller to retry (patches and
   * internal writes are unconditional); otherwise the client gets 409 Conflict.
   */
  retryable: boolean;
}

export async function commitUpdate(
  store: StoreContext,
  def: ResourceDef,
  target: UpdateTarget,
  current: JsonObject,
  incoming: JsonObject,
  ctx: RequestContext,
): Promise<WriteResult> {
  const { namespace, name, subresource } = target;
  let next = carryOver(def, target, current, incoming);
  rejectFinalizersAddedWhileDeleting(def, name, current, next);

  normalize(def, next, 'update', ctx, current);
  const attrs: AdmissionAttributes = { def, operation: 'UPDATE', subresource, namespace, name, ctx };
  const mutated = await store.admission.mutate(attrs, next, current);
  next = afterMutation(def, mutated, next, ctx, 'update');
  bumpGeneration(def, current, next, subresource);

  validate(def, next, subresource === 'binding' ? undefined : current);
  await store.admission.validate(attrs, next, current);
  if (target.operation !== 'Apply') recordManagedFields(store, def, current, next, ctx, subresource);
  next = ordered(def, next);

  // An apply that only adds its manager to fields it shares is still a write: shared ownership is
  // what keeps those fields when another applier drops them.
  const sameOwners = target.operation !== 'Apply' || deepEqual(meta(next).managedFields, meta(current).managedFields);
  if (sameOwners && deepEqual(withoutVolatileMeta(next), withoutVolatileMeta(current))) {
    return { object: current, created: false };
  }
  if (ctx.dryRun) {
    // As a dry-run create: through the storage codec and back for a webhook-converted CRD.
    return { object: def.converter ? await served(def, await toStored(def, next)) : next, created: false };
  }
  return persist(store, def, target, current, next);
}

/** The incoming object restricted to what this write may change, with identity and system fields kept. */
function carryOver(def: ResourceDef, target: UpdateTarget, current: JsonObject, incoming: JsonObject): JsonObject {
  const cm = meta(current);
  const next = isolate(def, current, incoming, target.subresource);
  const nm = meta(next);
  for (const f of SYSTEM_META) {
    // A different uid stays for validation to refuse (metadata.uid is immutable); an absent one is the stored one.
    if (f === 'uid' && typeof nm.uid === 'string' && nm.uid !== '' && cm.uid !== undefined) continue;
    if (cm[f] === undefined) delete nm[f];
    else nm[f] = cm[f];
  }
  nm.name = target.name;
  if (def.namespaced) nm.namespace = target.namespace;
  else delete nm.namespace;
  nm.resourceVersion = String(target.stored.revision);
  // pods/binding writes spec.nodeName and status together, past the pod update rules (as
  // kube's binding registry does with a direct storage update).
  if (target.subresource !== 'binding') def.strategy.prepareForUpdate?.(next, current, target.subresource);
  return next;
}

function rejectFinalizersAddedWhileDeleting(
  def: ResourceDef,
  name: string,
  current: JsonObject,
  next: JsonObject,
): void {
  const cm = meta(current);
  if (!cm.deletionTimestamp) return;
  const before = new Set(cm.finalizers ?? []);
  const added = (meta(next).finalizers ?? []).filter((f) => !before.has(f));
  if (added.length === 0) return;
  throw invalid(def.group, def.kind, name, [
    {
      reason: 'FieldValueForbidden',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
      field: 'metadata.finalizers',
    },
  ]);
}

function bumpGeneration(
  def: ResourceDef,
  current: JsonObject,
  next: JsonObject,
  subresource: string | undefined,
): void {
  const generation = meta(current).generation;
  if (!def.hasGeneration && !(typeof generation === 'number' && generation > 0)) return;
  const ignoreStatus = hasSubresource(def, 'status');
  const changed =
    def.strategy.generationChanged?.(next, current, subresource) ??
    !deepEqual(specPart(next, ignoreStatus), specPart(current, ignoreStatus));
  meta(next).generation = (typeof generation === 'number' ? generation : 0) + (changed ? 1 : 0);
}

async function persist(
  store: StoreContext,
  def: ResourceDef,
  target: UpdateTarget,
  current: JsonObject,
  next: JsonObject,
): Promise<WriteResult> {
  const { stored, name } = target;
  let updated: StoredObject;
  let toStore: JsonObject;
  try {
    // The last finalizer gone from an object being deleted: the update completes the deletion —
    // unless a grace period is still running (a pod whose kubelet is stopping it writes status
    // first, then deletes with grace 0), as the generic store's shouldDeleteDuringUpdate
    // (k8s.io/apiserver/pkg/registry/generic/registry/store.go).
    const grace = meta(current).deletionGracePeriodSeconds;
    if (meta(current).deletionTimestamp && !hasFinalizers(def, next) && !(typeof grace === 'number' && grace > 0)) {
      const deleted = store.storage.delete(stored.key, stored.revision);
      def.strategy.release?.(current);
      return { object: await served(def, parseStored(deleted)), created: false };
    }
    toStore = await toStored(def, next);
    updated = store.storage.update(stored.key, toStore as KubeObject, stored.revision);
  } catch (e) {
    if (e instanceof RevisionMismatchError) {
      if (target.retryable) throw e;
      throw conflict(refOf(def), name);
    }
    if (e instanceof KeyNotFoundError) throw notFound(refOf(def), name);
    throw e;
  }
  return { object: await written(def, toStore, updated), created: false };
}
