// The generic object store: the create/update/patch/delete semantics of kube-apiserver's
// generic registry, shared by every kind. Kind-specific behaviour comes in through the
// ResourceDef's strategy; the order of steps follows kube-apiserver (defaults, admission
// mutation, validation, admission validation, storage).
import { randomUUID, randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  internalError,
  invalid,
  notFound,
  StatusError,
  toCauses,
  type FieldError,
  type ResourceRef,
} from '../errors.ts';
import type { JsonObject, KubeObject, ObjectMeta } from '../types.ts';
import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Storage,
  type StoredObject,
} from '../storage/storage.ts';
import { validateObjectMeta } from '../validation/metadata.ts';
import { coerceObjectMeta } from '../crd/object-meta.ts';
import { objectMetaOptionsFor } from '../validation/name-rules.ts';
import { setManagedFields, updateManagedFields } from '../patch/managed-fields.ts';
import { serverSideApply } from '../patch/apply.ts';
import { atomicSchemaInfo } from '../patch/schema-info.ts';
import { applyPatch, type PatchType } from './patching.ts';
import { apiVersionOf, hasSubresource, type ResourceDef } from './resource.ts';
import { normalizeTimes } from './times.ts';
import { formatTime } from '../util/duration.ts';
import { objectKey } from './keys.ts';
import { noAdmission, type Admission, type AdmissionAttributes, type RequestContext } from './context.ts';

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface WriteResult {
  object: JsonObject;
  /** True when a create happened (201), false for an update (200). */
  created: boolean;
}

export interface StoreOptions {
  admission?: Admission;
  now?: () => Date;
}

/** System fields a client cannot set through an update; they are carried over from storage. */
const SYSTEM_META = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
];

const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

export function refOf(def: ResourceDef): ResourceRef {
  return { group: def.group, resource: def.resource };
}

export function parseStored(stored: StoredObject): JsonObject {
  return JSON.parse(stored.json) as JsonObject;
}

function meta(obj: JsonObject): ObjectMeta {
  if (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata as ObjectMeta;
}

/** Puts apiVersion, kind and metadata first, as kube-apiserver serializes. */
function ordered(obj: JsonObject): JsonObject {
  const { apiVersion, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

/** Everything but metadata (and status when `ignoreStatus`): what bumps `generation`. */
function specPart(obj: JsonObject, ignoreStatus: boolean): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind' || (ignoreStatus && k === 'status')) continue;
    out[k] = v;
  }
  return out;
}

function withoutVolatileMeta(obj: JsonObject): JsonObject {
  const m = { ...(obj.metadata as ObjectMeta) };
  delete m.resourceVersion;
  delete m.managedFields;
  return { ...obj, metadata: m as JsonObject };
}

export class ObjectStore {
  readonly storage: Storage;
  private admission: Admission;
  private readonly now: () => Date;

  constructor(storage: Storage, options: StoreOptions = {}) {
    this.storage = storage;
    this.admission = options.admission ?? noAdmission;
    this.now = options.now ?? (() => new Date());
  }

  setAdmission(admission: Admission): void {
    this.admission = admission;
  }

  getStored(def: ResourceDef, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.storage.get(objectKey(def, namespace, name));
  }

  get(def: ResourceDef, namespace: string | undefined, name: string): JsonObject {
    const stored = this.getStored(def, namespace, name);
    if (!stored) throw notFound(refOf(def), name);
    return this.present(def, parseStored(stored));
  }

  /** Converts a stored object to the served view of `def` (API version of a CRD, events.k8s.io). */
  present(def: ResourceDef, obj: JsonObject): JsonObject {
    if (def.view) return def.view.fromStored(obj);
    if (def.storageVersion && def.storageVersion !== def.version) obj.apiVersion = apiVersionOf(def);
    return obj;
  }

  presentJson(def: ResourceDef, json: string): string {
    if (!def.view && !(def.storageVersion && def.storageVersion !== def.version)) return json;
    return JSON.stringify(this.present(def, JSON.parse(json) as JsonObject));
  }

  /**
   * The object a write returns. Storage stamped the resourceVersion on the very object it
   * serialized, so re-parsing the stored text is only needed when the served view differs.
   */
  private written(def: ResourceDef, storedObj: JsonObject, stored: StoredObject): JsonObject {
    if (def.view || (def.storageVersion && def.storageVersion !== def.version))
      return this.present(def, parseStored(stored));
    return storedObj;
  }

  private toStored(def: ResourceDef, obj: JsonObject): JsonObject {
    if (def.view) return def.view.toStored(obj);
    if (def.storageVersion && def.storageVersion !== def.version) {
      obj.apiVersion = def.group ? `${def.group}/${def.storageVersion}` : def.storageVersion;
    }
    return obj;
  }

  // ---------------------------------------------------------------- create

  async create(
    def: ResourceDef,
    namespace: string | undefined,
    body: unknown,
    ctx: RequestContext,
  ): Promise<JsonObject> {
    const obj = this.decodeBody(def, body);
    const m = meta(obj);
    if (def.namespaced) {
      if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      m.namespace = namespace;
    } else {
      delete m.namespace;
    }
    if (m.resourceVersion !== undefined && m.resourceVersion !== '') {
      throw badRequest('resourceVersion should not be set on objects to be created');
    }
    if (def.namespaced) this.checkNamespaceAcceptsCreate(namespace ?? '');

    for (let attempt = 0; ; attempt++) {
      const candidate = structuredClone(obj);
      const cm = meta(candidate);
      if (!cm.name && cm.generateName) {
        let suffix = '';
        for (let i = 0; i < 5; i++) suffix += GENERATE_NAME_ALPHABET[randomInt(GENERATE_NAME_ALPHABET.length)];
        cm.name = `${cm.generateName}${suffix}`;
      }
      const prepared = await this.prepareCreate(def, candidate, ctx);
      def.strategy.allocate?.(prepared);
      if (ctx.dryRun) {
        def.strategy.release?.(prepared);
        if (this.storage.get(objectKey(def, namespace, String(meta(prepared).name)))) {
          throw alreadyExists(refOf(def), String(meta(prepared).name));
        }
        return this.present(def, prepared);
      }
      try {
        const toStore = this.toStored(def, prepared);
        const stored = this.storage.create(
          objectKey(def, namespace, String(meta(prepared).name)),
          toStore as KubeObject,
        );
        return this.written(def, toStore, stored);
      } catch (e) {
        def.strategy.release?.(prepared);
        if (e instanceof KeyExistsError) {
          if (!m.name && m.generateName && attempt < 5) continue;
          throw alreadyExists(refOf(def), String(meta(prepared).name));
        }
        throw e;
      }
    }
  }

  /** Defaults, system fields, admission and validation for a new object. */
  private async prepareCreate(def: ResourceDef, obj: JsonObject, ctx: RequestContext): Promise<JsonObject> {
    const m = meta(obj);
    const now = this.now();
    m.uid = randomUUID();
    m.creationTimestamp = formatTime(now);
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    if (def.hasGeneration) m.generation = 1;
    else delete m.generation;
    // A new object's status is the system's to write, except for Nodes (kubelets register with status).
    if (hasSubresource(def, 'status') && !(def.builtin && def.kind === 'Node')) delete obj.status;

    this.normalize(def, obj, 'create', ctx);
    const attrs: AdmissionAttributes = {
      def,
      operation: 'CREATE',
      namespace: m.namespace,
      name: String(m.name ?? ''),
      ctx,
    };
    let admitted = await this.admission.mutate(attrs, obj, undefined);
    admitted = this.afterMutation(def, admitted, obj, ctx, 'create');
    this.validate(def, admitted, undefined);
    await this.admission.validate(attrs, admitted, undefined);
    this.setManaged(admitted, this.managedFieldsFor(def, undefined, admitted, ctx, undefined));
    return ordered(admitted);
  }

  /** Re-applies what a mutating webhook must not undo, then defaults and prunes again. */
  private afterMutation(
    def: ResourceDef,
    admitted: JsonObject,
    before: JsonObject,
    ctx: RequestContext,
    op: 'create' | 'update',
  ): JsonObject {
    if (admitted === before) return admitted;
    const am = meta(admitted);
    const bm = meta(before);
    for (const f of [
      'uid',
      'creationTimestamp',
      'generation',
      'namespace',
      'name',
      'resourceVersion',
      'deletionTimestamp',
    ]) {
      if (bm[f] === undefined) delete am[f];
      else am[f] = bm[f];
    }
    this.normalize(def, admitted, op, { ...ctx, fieldValidation: 'Ignore' });
    return admitted;
  }

  /** Kind defaults and schema pruning, with `fieldValidation` reporting of unknown fields. */
  private normalize(
    def: ResourceDef,
    obj: JsonObject,
    op: 'create' | 'update',
    ctx: RequestContext,
    old?: JsonObject,
  ): void {
    // Go decodes built-ins into typed ObjectMeta, so a wrong type there is a 400 decode error
    // (CRs get the same check while pruning); later code may assume the Go types.
    if (def.builtin) {
      const bad = coerceObjectMeta(obj.metadata, 'metadata').invalid;
      if (bad.length > 0) throw badRequest(bad.join(', '));
    }
    const pruned = def.strategy.prune?.(obj) ?? [];
    if (pruned.length > 0 && ctx.fieldValidation !== 'Ignore') {
      const messages = pruned.map((p) => `unknown field "${p}"`);
      if (ctx.fieldValidation === 'Strict') throw badRequest(`strict decoding error: ${messages.join(', ')}`);
      ctx.warnings.push(...messages);
    }
    def.strategy.applyDefaults?.(obj, op, old);
    if (def.builtin) normalizeTimes(obj);
  }

  private validate(def: ResourceDef, obj: JsonObject, old: JsonObject | undefined): void {
    const m = meta(obj);
    const storageRes = def.storageOf ?? def;
    const errors: FieldError[] = validateObjectMeta(
      m,
      objectMetaOptionsFor(storageRes.group, storageRes.resource, def.namespaced, !def.builtin),
    );
    if (old) errors.push(...immutableMetaErrors(m, meta(old)));
    if (errors.length === 0) errors.push(...(def.strategy.validate?.(obj, old) ?? []));
    if (errors.length > 0) throw invalid(def.group, def.kind, String(m.name ?? m.generateName ?? ''), toCauses(errors));
  }

  private checkNamespaceAcceptsCreate(namespace: string): void {
    const ns = this.storage.get(`/core/namespaces/${namespace}`);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    const nsObj = parseStored(ns);
    if (meta(nsObj).deletionTimestamp) {
      throw forbidden(`unable to create new content in namespace ${namespace} because it is being terminated`, {
        name: namespace,
        kind: 'namespaces',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      });
    }
  }

  /** Decodes a request body into an object of `def`'s kind, checking apiVersion and kind. */
  private decodeBody(def: ResourceDef, body: unknown): JsonObject {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest(`the body of the request was not a ${def.kind} object`);
    }
    const obj = body as JsonObject;
    const expected = apiVersionOf(def);
    if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
      );
    }
    if (obj.kind !== undefined && obj.kind !== def.kind) {
      throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${def.kind})`);
    }
    obj.apiVersion = expected;
    obj.kind = def.kind;
    return obj;
  }

  // ---------------------------------------------------------------- update

  /**
   * PUT. `subresource` is 'status' (only .status is taken from the body), 'finalize'
   * (namespaces: only spec.finalizers) or undefined for the main resource.
   */
  async update(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    ctx: RequestContext,
    subresource?: string,
  ): Promise<WriteResult> {
    const obj = this.decodeBody(def, body);
    const m = meta(obj);
    if (m.name !== undefined && m.name !== name) {
      throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
    }
    if (def.namespaced && m.namespace && m.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const requestedRv = m.resourceVersion;
    const stored = this.getStored(def, namespace, name);
    if (!stored) throw notFound(refOf(def), name);
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
    return this.commitUpdate(
      def,
      namespace,
      name,
      stored,
      this.present(def, parseStored(stored)),
      obj,
      ctx,
      subresource,
      'Update',
    );
  }

  /**
   * Applies a patch to the stored object and writes the result through the update path.
   * Retries when another write lands in between, since a patch is unconditional unless it
   * carries a resourceVersion.
   */
  async patch(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patchBody: unknown,
    ctx: RequestContext,
    options: { subresource?: string; force?: boolean } = {},
  ): Promise<WriteResult> {
    for (let attempt = 0; ; attempt++) {
      const stored = this.getStored(def, namespace, name);
      if (!stored) {
        if (patchType === 'apply' && !options.subresource)
          return this.createByApply(def, namespace, name, patchBody, ctx, options.force ?? false);
        throw notFound(refOf(def), name);
      }
      const current = this.present(def, parseStored(stored));
      let next: JsonObject;
      if (patchType === 'apply') {
        next = this.applyConfiguration(def, current, patchBody, ctx, options);
      } else {
        if (patchType === 'strategic' && !def.builtin) {
          throw new StatusError(
            415,
            'UnsupportedMediaType',
            'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
          );
        }
        next = applyPatch(patchType, current, patchBody, def.strategy.schemaInfo ?? atomicSchemaInfo);
      }
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
      try {
        return await this.commitUpdate(
          def,
          namespace,
          name,
          stored,
          current,
          next,
          ctx,
          options.subresource,
          patchType === 'apply' ? 'Apply' : 'Update',
          true,
        );
      } catch (e) {
        if (e instanceof RevisionMismatchError && attempt < 10) continue;
        throw e;
      }
    }
  }

  private applyConfiguration(
    def: ResourceDef,
    current: JsonObject | undefined,
    body: unknown,
    ctx: RequestContext,
    options: { subresource?: string; force?: boolean },
  ): JsonObject {
    if (!ctx.fieldManager) {
      throw invalid(def.group, def.kind, String(meta((current ?? {}) as JsonObject).name ?? ''), [
        { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
      ]);
    }
    const applied = this.decodeBody(def, body);
    const result = serverSideApply(current, applied, {
      manager: ctx.fieldManager,
      force: options.force ?? false,
      apiVersion: apiVersionOf(def),
      subresource: options.subresource,
      now: formatTime(this.now()),
      schemaInfo: def.strategy.schemaInfo ?? atomicSchemaInfo,
      statusSubresource: hasSubresource(def, 'status'),
    });
    return result.object;
  }

  private async createByApply(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    ctx: RequestContext,
    force: boolean,
  ): Promise<WriteResult> {
    const applied = this.applyConfiguration(def, undefined, body, ctx, { force });
    const m = meta(applied);
    if (m.name !== undefined && m.name !== name) {
      throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
    }
    m.name = name;
    // An empty fieldManager keeps the managedFields the apply computed: the applier owns what it set.
    const created = await this.create(def, namespace, applied, { ...ctx, fieldManager: '' });
    return { object: created, created: true };
  }

  private async commitUpdate(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    stored: StoredObject,
    current: JsonObject,
    incoming: JsonObject,
    ctx: RequestContext,
    subresource: string | undefined,
    operation: 'Update' | 'Apply',
    fromPatch = false,
  ): Promise<WriteResult> {
    const cm = meta(current);
    let next = this.isolate(def, current, incoming, subresource);
    const nm = meta(next);
    for (const f of SYSTEM_META) {
      if (cm[f] === undefined) delete nm[f];
      else nm[f] = cm[f];
    }
    nm.name = name;
    if (def.namespaced) nm.namespace = namespace;
    else delete nm.namespace;
    nm.resourceVersion = String(stored.revision);
    // pods/binding writes spec.nodeName and status together, past the pod update rules (as
    // kube's binding registry does with a direct storage update).
    if (subresource !== 'binding') def.strategy.prepareForUpdate?.(next, current, subresource);

    if (cm.deletionTimestamp) {
      const before = new Set(cm.finalizers ?? []);
      const added = (nm.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        throw invalid(def.group, def.kind, name, [
          {
            reason: 'FieldValueForbidden',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
            field: 'metadata.finalizers',
          },
        ]);
      }
    }

    this.normalize(def, next, 'update', ctx, current);
    const attrs: AdmissionAttributes = { def, operation: 'UPDATE', subresource, namespace, name, ctx };
    const mutated = await this.admission.mutate(attrs, next, current);
    next = this.afterMutation(def, mutated, next, ctx, 'update');

    if (def.hasGeneration || (typeof cm.generation === 'number' && cm.generation > 0)) {
      const changed = !isDeepStrictEqual(
        specPart(next, hasSubresource(def, 'status')),
        specPart(current, hasSubresource(def, 'status')),
      );
      meta(next).generation = (typeof cm.generation === 'number' ? cm.generation : 0) + (changed ? 1 : 0);
    }

    this.validate(def, next, subresource === 'binding' ? undefined : current);
    await this.admission.validate(attrs, next, current);

    if (operation === 'Apply') {
      // serverSideApply already computed managedFields for the applier.
    } else {
      this.setManaged(next, this.managedFieldsFor(def, current, next, ctx, subresource));
    }
    next = ordered(next);

    if (isDeepStrictEqual(withoutVolatileMeta(next), withoutVolatileMeta(current))) {
      return { object: current, created: false };
    }
    if (ctx.dryRun) return { object: next, created: false };

    // The last finalizer gone from an object being deleted: the update completes the deletion.
    const finalizersLeft = (meta(next).finalizers ?? []).length > 0 || namespaceSpecFinalizers(def, next).length > 0;
    try {
      if (cm.deletionTimestamp && !finalizersLeft) {
        const deleted = this.storage.delete(stored.key, stored.revision);
        def.strategy.release?.(current);
        return { object: this.present(def, parseStored(deleted)), created: false };
      }
      const toStore = this.toStored(def, next);
      const written = this.storage.update(stored.key, toStore as KubeObject, stored.revision);
      return { object: this.written(def, toStore, written), created: false };
    } catch (e) {
      if (e instanceof RevisionMismatchError) {
        if (fromPatch) throw e;
        throw conflict(refOf(def), name);
      }
      if (e instanceof KeyNotFoundError) throw notFound(refOf(def), name);
      throw e;
    }
  }

  /** Status-subresource isolation in both directions, and namespace /finalize. */
  private isolate(
    def: ResourceDef,
    current: JsonObject,
    incoming: JsonObject,
    subresource: string | undefined,
  ): JsonObject {
    if (subresource === 'status') {
      const next = structuredClone(current);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
      // Labels and annotations are not writable through /status; managedFields come from the request.
      return next;
    }
    if (subresource === 'binding') {
      const next = structuredClone(current);
      next.spec = { ...((next.spec as JsonObject) ?? {}), nodeName: (incoming.spec as JsonObject).nodeName };
      next.status = structuredClone(incoming.status ?? {});
      return next;
    }
    if (subresource === 'finalize') {
      const next = structuredClone(current);
      const spec = (incoming.spec ?? {}) as JsonObject;
      next.spec = { ...((next.spec as JsonObject) ?? {}), finalizers: spec.finalizers ?? [] };
      return next;
    }
    const next = structuredClone(incoming);
    if (hasSubresource(def, 'status') && !(def.builtin && def.kind === 'Namespace')) {
      if (current.status === undefined) delete next.status;
      else next.status = structuredClone(current.status);
    }
    if (def.builtin && def.kind === 'Namespace') {
      // spec.finalizers only change through /finalize; status.phase is the server's.
      if (current.spec !== undefined) next.spec = structuredClone(current.spec);
      if (current.status !== undefined) next.status = structuredClone(current.status);
    }
    return next;
  }

  private setManaged(obj: JsonObject, entries: ReturnType<typeof updateManagedFields> | undefined): void {
    if (entries === undefined) return;
    obj.metadata = setManagedFields(obj, entries).metadata;
  }

  private managedFieldsFor(
    def: ResourceDef,
    current: JsonObject | undefined,
    next: JsonObject,
    ctx: RequestContext,
    subresource: string | undefined,
  ) {
    if (!ctx.fieldManager) return undefined;
    try {
      return updateManagedFields(current, next, ctx.fieldManager, {
        apiVersion: apiVersionOf(def),
        subresource,
        now: formatTime(this.now()),
        schemaInfo: def.strategy.schemaInfo ?? atomicSchemaInfo,
        statusSubresource: hasSubresource(def, 'status'),
      });
    } catch (e) {
      throw internalError(`tracking managed fields: ${(e as Error).message}`);
    }
  }

  // ---------------------------------------------------------------- delete

  async delete(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    ctx: RequestContext,
  ): Promise<{ object: JsonObject; deleted: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const stored = this.getStored(def, namespace, name);
      if (!stored) throw notFound(refOf(def), name);
      const current = this.present(def, parseStored(stored));
      const cm = meta(current);
      const pre = options.preconditions;
      if (pre?.uid !== undefined && pre.uid !== cm.uid) {
        throw conflict(
          refOf(def),
          name,
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(cm.uid)}`,
        );
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== cm.resourceVersion) {
        throw conflict(
          refOf(def),
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(cm.resourceVersion)}`,
        );
      }
      if (def.builtin && def.kind === 'Namespace' && ['default', 'kube-system', 'kube-public'].includes(name)) {
        throw forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, {
          name,
          kind: 'namespaces',
        });
      }
      // Mutating admission sees DELETE too (it may deny; there is no object to change).
      const deleteAttrs: AdmissionAttributes = {
        def,
        operation: 'DELETE',
        namespace,
        name,
        ctx,
        options: options as JsonObject,
      };
      await this.admission.mutate(deleteAttrs, current, current);
      await this.admission.validate(deleteAttrs, current, current);

      const next = structuredClone(current);
      const nm = meta(next);
      const finalizers = [...(nm.finalizers ?? [])];
      const policy = options.propagationPolicy;
      if (policy === 'Orphan' && !finalizers.includes(FINALIZER_ORPHAN)) finalizers.push(FINALIZER_ORPHAN);
      if (policy === 'Foreground' && !finalizers.includes(FINALIZER_FOREGROUND)) finalizers.push(FINALIZER_FOREGROUND);
      if (policy !== undefined && policy !== 'Orphan') finalizersRemove(finalizers, FINALIZER_ORPHAN);

      const graceSeconds = this.gracePeriodFor(def, current, options);
      const waitsForFinalizers = finalizers.length > 0 || namespaceSpecFinalizers(def, current).length > 0;
      const graceful = graceSeconds > 0;

      if (!waitsForFinalizers && !graceful) {
        if (ctx.dryRun) return { object: current, deleted: true };
        try {
          const deleted = this.storage.delete(stored.key, stored.revision);
          def.strategy.release?.(current);
          return { object: this.present(def, parseStored(deleted)), deleted: true };
        } catch (e) {
          if (e instanceof RevisionMismatchError && attempt < 10) continue;
          if (e instanceof KeyNotFoundError) throw notFound(refOf(def), name);
          throw e;
        }
      }

      // Deletion pending: stamp deletionTimestamp once. A graceful deletion may only be shortened,
      // counted from when it began (rest.BeforeDelete); one without grace moves to now at most.
      const now = this.now();
      const deadline = new Date(now.getTime() + graceSeconds * 1000);
      const existing = typeof nm.deletionTimestamp === 'string' ? Date.parse(nm.deletionTimestamp) : undefined;
      const existingGrace = typeof nm.deletionGracePeriodSeconds === 'number' ? nm.deletionGracePeriodSeconds : 0;
      if (existing !== undefined && existingGrace > 0) {
        if (graceSeconds < existingGrace) {
          nm.deletionTimestamp = formatTime(new Date(existing - (existingGrace - graceSeconds) * 1000));
          nm.deletionGracePeriodSeconds = graceSeconds;
        }
      } else if (existing === undefined || deadline.getTime() < existing) {
        nm.deletionTimestamp = formatTime(deadline);
        nm.deletionGracePeriodSeconds = graceSeconds;
        if (existing === undefined && typeof nm.generation === 'number' && nm.generation > 0) nm.generation += 1;
      }
      nm.finalizers = finalizers.length > 0 ? finalizers : undefined;
      if (nm.finalizers === undefined) delete nm.finalizers;
      if (def.builtin && def.kind === 'Namespace') {
        next.status = { ...((next.status as JsonObject) ?? {}), phase: 'Terminating' };
      }
      if (isDeepStrictEqual(next, current)) return { object: current, deleted: false };
      if (ctx.dryRun) return { object: next, deleted: false };
      try {
        const written = this.storage.update(stored.key, this.toStored(def, next) as KubeObject, stored.revision);
        return { object: this.present(def, parseStored(written)), deleted: false };
      } catch (e) {
        if (e instanceof RevisionMismatchError && attempt < 10) continue;
        throw e;
      }
    }
  }

  /**
   * Pods bound to a node that exists and whose kubelet will finish the deletion get a grace
   * period; everything else goes at once. A pod on a node that does not exist would otherwise
   * wait forever (kube-controller-manager's pod GC force-deletes those).
   */
  private gracePeriodFor(def: ResourceDef, current: JsonObject, options: DeleteOptions): number {
    if (!(def.builtin && def.kind === 'Pod')) return 0;
    const spec = (current.spec ?? {}) as JsonObject;
    const status = (current.status ?? {}) as JsonObject;
    const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    if (!nodeName || status.phase === 'Succeeded' || status.phase === 'Failed') return 0;
    if (!this.storage.get(`/core/nodes/${nodeName}`)) return 0;
    const requested = options.gracePeriodSeconds ?? meta(current).deletionGracePeriodSeconds;
    const fromSpec = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
    const grace = typeof requested === 'number' ? requested : fromSpec;
    return Math.max(0, Math.floor(grace));
  }

  // ---------------------------------------------------------------- internal writes

  /**
   * Read-modify-write used by the built-in controllers: retries on concurrent writes and skips
   * the write when `mutate` returns undefined.
   */
  async updateWith(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    ctx: RequestContext,
    mutate: (obj: JsonObject) => JsonObject | undefined,
    subresource?: string,
  ): Promise<JsonObject | undefined> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const stored = this.getStored(def, namespace, name);
      if (!stored) return undefined;
      const current = this.present(def, parseStored(stored));
      const next = mutate(structuredClone(current));
      if (!next) return current;
      try {
        const r = await this.commitUpdate(
          def,
          namespace,
          name,
          stored,
          current,
          next,
          ctx,
          subresource,
          'Update',
          true,
        );
        return r.object;
      } catch (e) {
        if (e instanceof RevisionMismatchError) continue;
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      }
    }
    throw conflict(refOf(def), name);
  }
}

function finalizersRemove(list: string[], name: string): void {
  const i = list.indexOf(name);
  if (i >= 0) list.splice(i, 1);
}

function namespaceSpecFinalizers(def: ResourceDef, obj: JsonObject): string[] {
  if (!(def.builtin && def.kind === 'Namespace')) return [];
  const spec = (obj.spec ?? {}) as JsonObject;
  return Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
}

function immutableMetaErrors(next: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  if (next.name !== old.name) {
    errors.push({ field: 'metadata.name', reason: 'FieldValueInvalid', message: 'field is immutable' });
  }
  return errors;
}
