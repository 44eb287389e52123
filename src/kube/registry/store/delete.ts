// DELETE: preconditions and admission, then either the removal itself or a pending deletion
// (deletionTimestamp stamped) that waits for finalizers or a pod's grace period.
import { notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, KubeObject } from '../../../apimachinery/meta/index.ts';
import { KeyNotFoundError, RevisionMismatchError, type StoredObject } from '../../storage/storage.ts';
import type { AdmissionAttributes, RequestContext } from '../context.ts';
import type { ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { checkDeletePreconditions } from './delete-preconditions.ts';
import { namespaceSpecFinalizers, propagationFinalizers } from './finalizers.ts';
import { getStored } from './get.ts';
import { gracePeriodFor, markDeletionPending } from './graceful-deletion.ts';
import { meta, parseStored, refOf } from './objects.ts';
import { served, toStored } from './presentation.ts';
import type { DeleteOptions, DeleteResult } from './types.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';

const DELETE_RETRIES = 10;

export async function deleteObject(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
  ctx: RequestContext,
): Promise<DeleteResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deleteOnce(store, def, namespace, name, options, ctx);
    } catch (e) {
      // Another write landed since the read: decide again on the fresh object.
      if (e instanceof RevisionMismatchError && attempt < DELETE_RETRIES) continue;
      throw e;
    }
  }
}

async function deleteOnce(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
  ctx: RequestContext,
): Promise<DeleteResult> {
  const stored = getStored(store, def, namespace, name);
  if (!stored) throw notFound(refOf(def), name);
  const current = await served(def, parseStored(stored));
  checkDeletePreconditions(def, name, current, options.preconditions);
  await admitDelete(store, def, namespace, name, current, options, ctx);

  const finalizers = propagationFinalizers(meta(current).finalizers ?? [], options.propagationPolicy);
  const graceSeconds = gracePeriodFor(store, def, current, options);
  const waitsForFinalizers = finalizers.length > 0 || namespaceSpecFinalizers(def, current).length > 0;
  const graceful = graceSeconds > 0;
  if (!waitsForFinalizers && !graceful) {
    if (ctx.dryRun) return { object: current, deleted: true };
    return await remove(store, def, name, stored, current);
  }
  const next = markDeletionPending(def, current, finalizers, graceSeconds, store.now());
  if (deepEqual(next, current)) return { object: current, deleted: false };
  if (ctx.dryRun) return { object: next, deleted: false };
  const written = store.storage.update(stored.key, (await toStored(def, next)) as KubeObject, stored.revision);
  return { object: await served(def, parseStored(written)), deleted: false };
}

/** Mutating admission sees DELETE too (it may deny; there is no object to change). */
async function admitDelete(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  current: JsonObject,
  options: DeleteOptions,
  ctx: RequestContext,
): Promise<void> {
  const attrs: AdmissionAttributes = {
    def,
    operation: 'DELETE',
    namespace,
    name,
    ctx,
    options: options as JsonObject,
  };
  await store.admission.mutate(attrs, current, current);
  await store.admission.validate(attrs, current, current);
}

/** The removal itself, guarded by the revision that was read. */
async function remove(
  store: StoreContext,
  def: ResourceDef,
  name: string,
  stored: StoredObject,
  current: JsonObject,
): Promise<DeleteResult> {
  let deleted: StoredObject;
  try {
    deleted = store.storage.delete(stored.key, stored.revision);
  } catch (e) {
    if (e instanceof KeyNotFoundError) throw notFound(refOf(def), name);
    throw e;
  }
  def.strategy.release?.(current);
  return { object: await served(def, parseStored(deleted)), deleted: true };
}
