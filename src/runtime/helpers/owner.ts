// Owner references, as controller-runtime's controllerutil: the controller reference makes the
// garbage collector delete the object with its owner and lets `owns()` map it back.
import { ApiError } from '../client/errors.ts';
import type { KubeObject, OwnerReference } from '../client/types.ts';

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** Same object by group, kind and name (the version may differ), as controller-runtime compares. */
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

/** The object already has a different controller; a 422-like ApiError (`isInvalid` is true). */
export class AlreadyOwnedError extends ApiError {
  constructor(
    readonly object: KubeObject,
    readonly owner: OwnerReference,
  ) {
    super(
      422,
      'AlreadyOwned',
      `Object ${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

function referenceTo(owner: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid } = owner.metadata;
  if (!apiVersion || !kind || !name || !uid) {
    throw new TypeError('owner needs apiVersion, kind, metadata.name and metadata.uid (read it from the API first)');
  }
  return { apiVersion, kind, name, uid };
}

function checkScopes(owner: KubeObject, obj: KubeObject): void {
  const ownerNs = owner.metadata.namespace;
  if (!ownerNs) return; // cluster-scoped owners may own anything
  const objNs = obj.metadata.namespace;
  if (!objNs) throw new TypeError(`cluster-scoped ${obj.kind ?? 'object'} cannot be owned by namespaced ${owner.kind}`);
  if (objNs !== ownerNs) {
    throw new TypeError(`cross-namespace owner references are not allowed (${ownerNs} owning ${objNs})`);
  }
}

function upsert(obj: KubeObject, ref: OwnerReference): void {
  const refs = [...(obj.metadata.ownerReferences ?? [])];
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
  obj.metadata.ownerReferences = refs;
}

/**
 * Makes `owner` the controller of `obj` (in memory): `controller: true` and, by default,
 * `blockOwnerDeletion: true`. Throws {@link AlreadyOwnedError} when another object controls it.
 */
export function setControllerReference(
  owner: KubeObject,
  obj: KubeObject,
  opts: { blockOwnerDeletion?: boolean } = {},
): void {
  const ref: OwnerReference = {
    ...referenceTo(owner),
    controller: true,
    blockOwnerDeletion: opts.blockOwnerDeletion ?? true,
  };
  checkScopes(owner, obj);
  const existing = getControllerOf(obj);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(obj, existing);
  upsert(obj, ref);
}

/** Adds (or refreshes) a non-controller owner reference. */
export function setOwnerReference(owner: KubeObject, obj: KubeObject): void {
  checkScopes(owner, obj);
  const ref = referenceTo(owner);
  const prev = obj.metadata.ownerReferences?.find((r) => sameOwner(r, ref));
  upsert(obj, {
    ...ref,
    ...(prev?.controller !== undefined ? { controller: prev.controller } : {}),
    ...(prev?.blockOwnerDeletion !== undefined ? { blockOwnerDeletion: prev.blockOwnerDeletion } : {}),
  });
}

/** Removes `owner`'s reference; true when one was removed. */
export function removeOwnerReference(owner: KubeObject, obj: KubeObject): boolean {
  const ref = referenceTo(owner);
  const refs = obj.metadata.ownerReferences ?? [];
  const kept = refs.filter((r) => !sameOwner(r, ref));
  if (kept.length === refs.length) return false;
  obj.metadata.ownerReferences = kept;
  return true;
}

export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `owner` (matched by uid) is the controller of `obj`. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const c = getControllerOf(obj);
  return !!c && !!owner.metadata.uid && c.uid === owner.metadata.uid;
}
