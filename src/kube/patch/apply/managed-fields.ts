// managedFields for writes that are not server-side apply (create, update, patch): the writer
// takes ownership of what it added or changed, and every other manager loses what changed or
// disappeared. Mirrors kube-apiserver's fieldmanager chain (Update path) so that a later apply
// sees the same owners, and conflicts name the same managers, as against a real cluster.
import type { JsonObject, JsonValue, ManagedFieldsEntry } from '../../../apimachinery/meta/index.ts';
import type { SchemaInfo } from '../schema-info.ts';
import type { Managed, ManagerId } from './managers.ts';
import { deepEqual, isObject } from '../../../apimachinery/json/index.ts';
import { compareObjects } from './compare.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  identifier,
  managerId,
  ownableFilter,
  ownablePart,
  unownedPaths,
  withoutManagedFields,
} from './managers.ts';

export interface UpdateManagedFieldsOptions {
  /** The group/version the request was made in, e.g. "v1" or "apps/v1". */
  apiVersion: string;
  subresource?: string;
  /** RFC 3339 time recorded on entries this write changes, e.g. "2024-05-01T10:00:00Z". */
  now: string;
  schemaInfo: SchemaInfo;
  /**
   * Whether the kind has a status subresource (default true). If so, writes to the main resource
   * never own `status` and writes to `/status` own only `status`.
   */
  statusSubresource?: boolean;
}

/**
 * The managedFields to store after a create (`oldObj` undefined), update or patch by `manager`.
 * `newObj` is the object about to be stored; its `metadata.managedFields` is what the request
 * left there (see stripManagedFieldsInput). An empty result means the object carries no
 * managedFields: kube omits the field then.
 *
 * Like kube, an existing object that has no managedFields stays untracked by updates; only a
 * create or an apply starts tracking.
 */
export function updateManagedFields(
  oldObj: JsonObject | undefined,
  newObj: JsonObject,
  manager: string,
  opts: UpdateManagedFieldsOptions,
): ManagedFieldsEntry[] {
  const managed = startingManaged(oldObj, newObj, opts.subresource);
  const isCreate = oldObj === undefined || !metadataOf(oldObj).uid;
  if (managed.size === 0 && !isCreate) return [];
  recordUpdate(
    managed,
    withoutManagedFields(oldObj ?? {}),
    withoutManagedFields(newObj),
    managerId(manager, 'Update', opts.apiVersion, opts.subresource),
    opts,
  );
  return encodeManagedFields(managed);
}

/**
 * Which managedFields a non-apply write starts from. A client may edit managedFields, so kube
 * takes the list the request carries, with these rules (kept here):
 * - writes to a subresource: the stored list; what the request carries is ignored;
 * - `[]` or `[{}]`: a reset — start from nothing (the object then stays untracked until an apply,
 *   unless this is a create);
 * - a non-empty list whose every entry is valid (operation Apply/Update, non-empty apiVersion,
 *   fieldsType FieldsV1, parseable fieldsV1): that list;
 * - anything else (absent, null, or any invalid entry): the stored list, or nothing if that is
 *   invalid too.
 */
export function stripManagedFieldsInput(
  oldObj: JsonObject | undefined,
  newObj: JsonObject,
  subresource?: string,
): ManagedFieldsEntry[] {
  return encodeManagedFields(startingManaged(oldObj, newObj, subresource));
}

/**
 * stripManagedFieldsInput's choice, decoded. Most writes leave the stored list as it was (a
 * patch that does not touch managedFields, a status write): that list is decoded once instead of
 * being decoded, re-encoded and decoded again per candidate.
 */
function startingManaged(oldObj: JsonObject | undefined, newObj: JsonObject, subresource?: string): Managed {
  const storedList = oldObj ? metadataOf(oldObj).managedFields : undefined;
  if (!subresource) {
    const sent = metadataOf(newObj).managedFields;
    if (Array.isArray(sent) && (sent.length === 0 || (sent.length === 1 && deepEqual(sent[0], {})))) return new Map();
    if (sent !== undefined && sent !== null && sent !== storedList && !deepEqual(sent, storedList ?? null)) {
      const valid = decodedOrEmpty(sent);
      if (valid.size > 0) return valid;
    }
  }
  return decodedOrEmpty(storedList);
}

/** A valid list decoded, as encodeManagedFields would keep it (no empty entries); empty when invalid. */
function decodedOrEmpty(list: JsonValue | undefined): Managed {
  try {
    const managed = decodeManagedFields(list);
    for (const [k, e] of managed) if (e.set.isEmpty) managed.delete(k);
    return managed;
  } catch {
    return new Map();
  }
}

function metadataOf(obj: JsonObject): JsonObject {
  return isObject(obj.metadata) ? obj.metadata : {};
}

/**
 * One non-apply write into `managed` (mutated): what `next` added or changed relative to `live`
 * becomes `id`'s, and is taken from everyone else along with what was removed. The entry's time
 * moves only when the write took something, so a no-op write leaves managedFields untouched.
 */
export function recordUpdate(
  managed: Managed,
  live: JsonObject,
  next: JsonObject,
  id: ManagerId,
  opts: Omit<UpdateManagedFieldsOptions, 'subresource'>,
): void {
  const ownable = ownableFilter(id.subresource, opts.statusSubresource);
  const cmp = compareObjects(
    ownablePart(live, id.subresource, opts.statusSubresource),
    ownablePart(next, id.subresource, opts.statusSubresource),
    opts.schemaInfo,
  );
  const removed = ownable(cmp.removed);
  const taken = ownable(cmp.modified.union(cmp.added));
  for (const [k, e] of managed) {
    e.set = e.set.difference(taken).difference(removed);
    if (e.set.isEmpty) managed.delete(k);
  }
  const mine = taken.difference(unownedPaths);
  if (!mine.isEmpty) {
    const key = identifier(id);
    const prev = managed.get(key);
    managed.set(key, {
      id,
      apiVersion: opts.apiVersion,
      set: prev ? mine.union(prev.set) : mine,
      time: opts.now,
    });
  }
  capUpdateManagers(managed);
}

/** Sets or, for an empty list, removes `metadata.managedFields` (kube never stores an empty list). */
export function setManagedFields(obj: JsonObject, entries: ManagedFieldsEntry[]): JsonObject {
  const meta: JsonObject = { ...metadataOf(obj) };
  if (entries.length === 0) delete meta.managedFields;
  // ManagedFieldsEntry is plain JSON; it only lacks JsonObject's index signature.
  else meta.managedFields = entries as unknown as JsonValue;
  return { ...obj, metadata: meta };
}
