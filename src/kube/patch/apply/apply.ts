// Server-side apply (PATCH with application/apply-patch+yaml): merges an applied configuration
// into the live object and records what the applier now owns in `metadata.managedFields`.
//
// Semantics follow kube-apiserver (fieldmanager + structured-merge-diff):
// - maps merge per field, map-lists per key, sets per value; atomic lists and maps are replaced;
// - a field the applier set last time and omits now is removed, unless another manager owns it;
// - changing a field another manager owns is a 409 naming every such field, unless `force`, which
//   moves ownership; setting the value it already has just shares ownership;
// - an object with no managedFields first gets a `before-first-apply` Update entry owning what it has;
// - for manager "kubectl", conflicts the last-applied annotation explains are forced through and
//   the annotation is kept in sync (client-side to server-side apply upgrade).
//
// Never owned (the caller sets them): apiVersion, kind, metadata.{name, namespace, uid,
// resourceVersion, generation, creationTimestamp, selfLink, clusterName, managedFields}. With a
// status subresource, applies to the main resource never own `status` and applies to `/status` own
// only `status`; keeping the other part of the object as stored is the caller's job, as are
// defaulting, validation and pruning (a `null` in the configuration is merged as null).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { SchemaInfo } from '../schema-info.ts';
import type { Managed, ManagerId } from './managers.ts';
import type { Conflict } from './conflicts.ts';
import { StatusError, badRequest } from '../../../apimachinery/errors/index.ts';
import { cloneJson, deepEqual, isObject } from '../../../apimachinery/json/index.ts';
import { compareObjects } from './compare.ts';
import { FieldSet, fromObject } from './fieldpath.ts';
import { mergeApplied, pruneUnowned } from './merge.ts';
import { formatValidationErrors, validateApplied } from './validate.ts';
import { applyConflictError } from './conflicts.ts';
import { allowedByLastApplied, syncLastApplied, upgradingManager } from './last-applied.ts';
import { recordUpdate, setManagedFields } from './managed-fields.ts';
import {
  ManagedFieldsError,
  decodeManagedFields,
  encodeManagedFields,
  identifier,
  managerId,
  ownableFilter,
  unownedPaths,
  withoutManagedFields,
} from './managers.ts';

export interface ApplyOptions {
  /** The fieldManager query parameter; the caller rejects an empty one with 422. */
  manager: string;
  force: boolean;
  /** The endpoint's group/version; the configuration must be in it. */
  apiVersion: string;
  /** The endpoint's kind; when given, the configuration must match it too. */
  kind?: string;
  subresource?: string;
  /** RFC 3339, e.g. "2024-05-01T10:00:00Z"; becomes the applier's entry time when the object changes. */
  now: string;
  schemaInfo: SchemaInfo;
  /** Values of the wrong type, in structured-merge-diff's words (built-in kinds' typed models). */
  typeErrors?: (applied: JsonObject) => string[];
  /**
   * Why the merged object does not convert into the kind's Go type (built-in kinds: what passes
   * structured-merge-diff but not the unstructured converter, e.g. a []byte value that is not base64).
   */
  conversionErrors?: (merged: JsonObject) => string[];
  /** Whether the kind has a status subresource (default true); see the file comment. */
  statusSubresource?: boolean;
}

export interface ApplyResult {
  /** The object to store, managedFields included. */
  object: JsonObject;
  /** False when object and managedFields are exactly the live ones (kube then writes nothing). */
  changed: boolean;
}

export const beforeFirstApplyManager = 'before-first-apply';

/**
 * Applies `applied` to `live` (undefined: the object does not exist yet and is created).
 * Throws StatusError: 400 for a configuration of another type or one carrying managedFields,
 * 409 for conflicts, 500 (as kube) for a configuration whose lists cannot be merged, e.g. two
 * containers with the same name.
 */
export function serverSideApply(live: JsonObject | undefined, applied: JsonObject, opts: ApplyOptions): ApplyResult {
  checkConfiguration(applied, opts);
  const managed: Managed = live ? decodeLive(live) : new Map();
  const liveContent = withoutManagedFields(live ?? {});
  if (live && managed.size === 0) {
    const empty: JsonObject = { apiVersion: applied.apiVersion, kind: applied.kind };
    recordUpdate(
      managed,
      empty,
      liveContent,
      managerId(beforeFirstApplyManager, 'Update', opts.apiVersion, opts.subresource),
      opts,
    );
  }
  const id = managerId(opts.manager, 'Apply', opts.apiVersion, opts.subresource);
  let outcome = attempt(managed, liveContent, applied, id, opts.force, opts);
  if ('conflicts' in outcome && opts.manager === upgradingManager && live) {
    const allowed = allowedByLastApplied(liveContent, opts.apiVersion, opts.schemaInfo);
    if (allowed) {
      const rest = outcome.conflicts.filter((c) => !allowed.has(c.path));
      outcome = rest.length === 0 ? attempt(managed, liveContent, applied, id, true, opts) : { conflicts: rest };
    }
  }
  if ('conflicts' in outcome) throw applyConflictError(outcome.conflicts);
  checkConversion(outcome.object, applied, opts);

  let object = setManagedFields(outcome.object, encodeManagedFields(outcome.managed));
  if (opts.manager === upgradingManager) object = syncLastApplied(object, applied);
  return { object, changed: live === undefined || !deepEqual(live, object) };
}

function checkConfiguration(applied: JsonObject, opts: ApplyOptions): void {
  if (applied.apiVersion !== opts.apiVersion || (opts.kind !== undefined && applied.kind !== opts.kind)) {
    throw badRequest(`invalid object type: ${gvkString(applied)}`);
  }
  const meta = isObject(applied.metadata) ? applied.metadata : {};
  if (meta.managedFields !== undefined && meta.managedFields !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const errs = [...validateApplied(applied, opts.schemaInfo), ...(opts.typeErrors?.(applied) ?? [])];
  if (errs.length > 0) {
    // kube returns these untyped, so they surface as a bare 500 carrying structured-merge-diff's text.
    throw new StatusError(
      500,
      'InternalError',
      `failed to create typed patch object (${namespacedName(applied)}; ${gvkString(applied)}): ${formatValidationErrors(errs)}`,
    );
  }
}

/**
 * The merged object is converted to the endpoint's Go type (managedfields/internal/structuredmerge.go
 * toVersioned, through runtime/scheme.go unstructuredToTyped); kube returns the error untyped, a 500.
 */
function checkConversion(merged: JsonObject, applied: JsonObject, opts: ApplyOptions): void {
  const [problem] = opts.conversionErrors?.(merged) ?? [];
  if (problem === undefined) return;
  const gvk = gvkString(applied);
  throw new StatusError(
    500,
    'InternalError',
    `failed to convert new object (${namespacedName(applied)}; ${gvk}) to proper version: ` +
      `unable to convert unstructured object to ${gvk}: ${problem}`,
  );
}

/** The configuration's own namespace/name, as objectGVKNN prints it. */
function namespacedName(applied: JsonObject): string {
  const meta = isObject(applied.metadata) ? applied.metadata : {};
  return `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}`;
}

/** Go's GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=Pod" for the core group. */
function gvkString(obj: JsonObject): string {
  const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  return `${av.includes('/') ? av : `/${av}`}, Kind=${kind}`;
}

function decodeLive(live: JsonObject): Managed {
  try {
    return decodeManagedFields(isObject(live.metadata) ? live.metadata.managedFields : undefined);
  } catch (e) {
    if (!(e instanceof ManagedFieldsError)) throw e;
    throw new StatusError(500, 'InternalError', `failed to decode managed fields: ${e.message}`);
  }
}

type Outcome = { object: JsonObject; managed: Managed } | { conflicts: Conflict[] };

/** One merge attempt on copies, so that a retry with force starts from the same state. */
function attempt(
  managedIn: Managed,
  live: JsonObject,
  applied: JsonObject,
  id: ManagerId,
  force: boolean,
  opts: ApplyOptions,
): Outcome {
  const ownable = ownableFilter(opts.subresource, opts.statusSubresource);
  const managed: Managed = new Map([...managedIn].map(([k, e]) => [k, { ...e }]));
  const key = identifier(id);
  const previous = managed.get(key);
  const set = ownable(fromObject(applied, opts.schemaInfo));
  managed.set(key, { id, apiVersion: opts.apiVersion, set, ...(previous?.time ? { time: previous.time } : {}) });

  let object = mergeApplied(live, applied, opts.schemaInfo);
  if (previous) {
    let owned = new FieldSet();
    for (const e of managed.values()) owned = owned.union(e.set);
    object = pruneUnowned(object, previous.set, owned, opts.schemaInfo);
  }

  const cmp = compareObjects(live, object, opts.schemaInfo);
  const changed = ownable(cmp.modified.union(cmp.added));
  const removed = ownable(cmp.removed);
  const conflicts: Conflict[] = [];
  const taken = new Map<string, FieldSet>();
  for (const [k, e] of managed) {
    if (k === key) continue;
    const c = e.set.intersection(changed);
    if (c.isEmpty) continue;
    taken.set(k, c);
    for (const path of c.paths()) conflicts.push({ id: e.id, path });
  }
  if (!force && conflicts.length > 0) return { conflicts };

  for (const [k, e] of managed) {
    if (k === key) continue;
    e.set = e.set.difference(taken.get(k) ?? new FieldSet()).difference(removed);
  }
  const mine = managed.get(key)!;
  mine.set = mine.set.difference(unownedPaths);
  for (const [k, e] of managed) if (e.set.isEmpty) managed.delete(k);
  if (!deepEqual(live, object)) mine.time = opts.now;
  return { object: cloneJson(object), managed };
}
