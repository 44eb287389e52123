// PUT: replaces an object, guarded by the resourceVersion the client read (required unless the
// kind allows unconditional updates).
import { badRequest, conflict, invalid, notFound } from '../../../apimachinery/errors/index.ts';
import type { RequestContext } from '../context.ts';
import type { ResourceDef } from '../resource.ts';
import { commitUpdate } from './commit-update.ts';
import type { StoreContext } from './context.ts';
import { decodeObject } from './decode.ts';
import { getStored } from './get.ts';
import { meta, parseStored, refOf } from './objects.ts';
import { served } from './presentation.ts';
import { checkBodyDecodes } from './typed.ts';
import type { WriteResult } from './types.ts';
import { checkUidPrecondition } from './uid-precondition.ts';

/**
 * `subresource` is 'status' (only .status is taken from the body), 'finalize' (namespaces: only
 * spec.finalizers) or undefined for the main resource.
 */
export async function updateObject(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  body: unknown,
  ctx: RequestContext,
  subresource?: string,
): Promise<WriteResult> {
  const obj = decodeObject(def, body);
  checkBodyDecodes(def, obj);
  const m = meta(obj);
  if (m.name !== undefined && m.name !== name) {
    throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
  }
  if (def.namespaced && m.namespace && m.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const requestedRv = m.resourceVersion;
  const stored = getStored(store, def, namespace, name);
  if (!stored) throw notFound(refOf(def), name);
  checkUidPrecondition(def, namespace, name, m.uid, meta(parseStored(stored)).uid);
  if (requestedRv === undefined || requestedRv === '') {
    if (!def.allowUnconditionalUpdate) {
      throw invalid(def.group, def.kind, name, [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0x0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ]);
    }
  } else if (requestedRv !== String(stored.revision)) {
    throw conflict(refOf(def), name);
  }
  const current = await served(def, parseStored(stored));
  return commitUpdate(store, def, { namespace, name, stored, subresource, retryable: false }, current, obj, ctx);
}
