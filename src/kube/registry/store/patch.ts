// PATCH: a json, merge, strategic-merge or apply patch on the stored object, written through the
// update path. A patch is unconditional unless it carries a resourceVersion, so a write that
// loses a race is retried on the fresh object.
import { badRequest, conflict, notFound, StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { RevisionMismatchError, type StoredObject } from '../../storage/storage.ts';
import { atomicSchemaInfo } from '../../patch/schema-info.ts';
import type { RequestContext } from '../context.ts';
import { applyPatch, type PatchType } from '../patching.ts';
import type { ResourceDef } from '../resource.ts';
import { applyConfiguration, createByApply, type ApplyOptions } from './apply.ts';
import { commitUpdate } from './commit-update.ts';
import type { StoreContext } from './context.ts';
import { getStored } from './get.ts';
import { meta, parseStored, refOf } from './objects.ts';
import { served } from './presentation.ts';
import { checkPatchedDecodes } from './typed.ts';
import type { WriteResult } from './types.ts';

const PATCH_RETRIES = 10;

export async function patchObject(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  patchType: PatchType,
  patchBody: unknown,
  ctx: RequestContext,
  options: ApplyOptions = {},
): Promise<WriteResult> {
  const { subresource } = options;
  for (let attempt = 0; ; attempt++) {
    const stored = getStored(store, def, namespace, name);
    if (!stored) {
      if (patchType === 'apply' && !subresource)
        return createByApply(store, def, namespace, name, patchBody, ctx, options.force ?? false);
      throw notFound(refOf(def), name);
    }
    const current = await served(def, parseStored(stored));
    const next = patched(store, def, current, patchType, patchBody, ctx, options);
    checkPatched(def, name, stored, next);
    const operation = patchType === 'apply' ? 'Apply' : 'Update';
    try {
      const target = { namespace, name, stored, subresource, operation, retryable: true } as const;
      return await commitUpdate(store, def, target, current, next, ctx);
    } catch (e) {
      if (e instanceof RevisionMismatchError && attempt < PATCH_RETRIES) continue;
      throw e;
    }
  }
}

function patched(
  store: StoreContext,
  def: ResourceDef,
  current: JsonObject,
  patchType: PatchType,
  patchBody: unknown,
  ctx: RequestContext,
  options: ApplyOptions,
): JsonObject {
  if (patchType === 'apply') return applyConfiguration(store, def, current, patchBody, ctx, options);
  if (patchType === 'strategic' && !def.builtin) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  }
  const next = applyPatch(patchType, current, patchBody, def.strategy.schemaInfo ?? atomicSchemaInfo);
  checkPatchedDecodes(def, patchType, patchBody, next);
  return next;
}

/** The patched object must still be this object; its resourceVersion becomes the stored one. */
function checkPatched(def: ResourceDef, name: string, stored: StoredObject, next: JsonObject): void {
  if (typeof next !== 'object' || next === null || Array.isArray(next)) {
    throw badRequest('the patch did not produce an object');
  }
  const nm = meta(next);
  if (nm.name !== name) {
    throw badRequest(`the name of the object (${String(nm.name)}) does not match the name on the URL (${name})`);
  }
  if (nm.resourceVersion !== undefined && nm.resourceVersion !== String(stored.revision)) {
    // Only a resourceVersion the patch itself carried can disagree with the stored one.
    throw conflict(refOf(def), name);
  }
  nm.resourceVersion = String(stored.revision);
}
