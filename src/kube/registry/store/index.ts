// The generic object store: the create/update/patch/delete semantics of kube-apiserver's
// generic registry, shared by every kind. Kind-specific behaviour comes in through the
// ResourceDef's strategy; the order of steps follows kube-apiserver (defaults, admission
// mutation, validation, admission validation, storage). Each verb lives in its own module;
// this class only holds what they share.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { Storage, StoredObject } from '../../storage/storage.ts';
import { noAdmission, type Admission, type RequestContext } from '../context.ts';
import type { PatchType } from '../patching.ts';
import type { ResourceDef } from '../resource.ts';
import type { ApplyOptions } from './apply.ts';
import type { StoreContext } from './context.ts';
import { createObject } from './create.ts';
import { deleteObject } from './delete.ts';
import { getConvertedObject, getObject, getStored } from './get.ts';
import { patchObject } from './patch.ts';
import { present, presentJson, servedJson, servedListJson } from './presentation.ts';
import type { DeleteOptions, DeleteResult, StoreOptions, WriteResult } from './types.ts';
import { updateObject } from './update.ts';
import { updateWith } from './update-with.ts';

export { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from './finalizers.ts';
export { parseStored, refOf } from './objects.ts';
export { checkBodyDecodes, checkPatchedDecodes, type Decoding } from './typed.ts';
export type { DeleteOptions, DeleteResult, PropagationPolicy, StoreOptions, WriteResult } from './types.ts';

export class ObjectStore {
  readonly storage: Storage;
  private readonly context: StoreContext;

  constructor(storage: Storage, options: StoreOptions = {}) {
    this.storage = storage;
    this.context = { storage, admission: options.admission ?? noAdmission, now: options.now ?? (() => new Date()) };
  }

  setAdmission(admission: Admission): void {
    this.context.admission = admission;
  }

  getStored(def: ResourceDef, namespace: string | undefined, name: string): StoredObject | undefined {
    return getStored(this.context, def, namespace, name);
  }

  /** One object in `def`'s version; synchronous, so not for a CRD converted by a webhook (see getConverted). */
  get(def: ResourceDef, namespace: string | undefined, name: string): JsonObject {
    return getObject(this.context, def, namespace, name);
  }

  /** One object in `def`'s version, through the CRD's conversion webhook when it has one. */
  getConverted(def: ResourceDef, namespace: string | undefined, name: string): Promise<JsonObject> {
    return getConvertedObject(this.context, def, namespace, name);
  }

  /** Converts a stored object to the served view of `def` (API version of a CRD, events.k8s.io). */
  present(def: ResourceDef, obj: JsonObject): JsonObject {
    return present(def, obj);
  }

  presentJson(def: ResourceDef, json: string): string {
    return presentJson(def, json);
  }

  /** One stored object's JSON in `def`'s version, through its conversion webhook (defs with a converter). */
  servedJson(def: ResourceDef, json: string): Promise<string> {
    return servedJson(def, json);
  }

  /** A list's stored items in `def`'s version, converted in one review (defs with a converter). */
  servedListJson(def: ResourceDef, items: readonly string[]): Promise<string[]> {
    return servedListJson(def, items);
  }

  create(def: ResourceDef, namespace: string | undefined, body: unknown, ctx: RequestContext): Promise<JsonObject> {
    return createObject(this.context, def, namespace, body, ctx);
  }

  /** PUT; see updateObject for the subresources. */
  update(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    ctx: RequestContext,
    subresource?: string,
  ): Promise<WriteResult> {
    return updateObject(this.context, def, namespace, name, body, ctx, subresource);
  }

  patch(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patchBody: unknown,
    ctx: RequestContext,
    options: ApplyOptions = {},
  ): Promise<WriteResult> {
    return patchObject(this.context, def, namespace, name, patchType, patchBody, ctx, options);
  }

  delete(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    ctx: RequestContext,
  ): Promise<DeleteResult> {
    return deleteObject(this.context, def, namespace, name, options, ctx);
  }

  /** Read-modify-write for the built-in controllers (see updateWith). */
  updateWith(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    ctx: RequestContext,
    mutate: (obj: JsonObject) => JsonObject | undefined,
    subresource?: string,
  ): Promise<JsonObject | undefined> {
    return updateWith(this.context, def, namespace, name, ctx, mutate, subresource);
  }
}
