// The decoded form of `metadata.managedFields`: one entry per manager identity, each with the field
// set it owns. Identity, entry order and the 10-updater cap follow kube-apiserver's fieldmanager,
// since clients (kubectl, controllers diffing managedFields) see the encoded list as is.
import type {
  JsonObject,
  JsonValue,
  ManagedFieldsEntry,
  WrittenManagedFieldsEntry,
} from '../../../apimachinery/meta/index.ts';

import { FieldSet } from './fieldpath.ts';
import { FieldsV1Error, field } from './path.ts';
import { goJson } from '../../../apimachinery/strings/go-format.ts';
import { isObject, presentKeys } from '../../../apimachinery/json/index.ts';

export interface ManagerId {
  manager: string;
  operation: 'Apply' | 'Update';
  /** Part of the identity for Update only: an applier keeps one entry whatever version it applies. */
  apiVersion?: string;
  subresource?: string;
}

export interface ManagerEntry {
  id: ManagerId;
  apiVersion: string;
  set: FieldSet;
  time?: string;
}

/** Keyed by `identifier(id)`. */
export type Managed = Map<string, ManagerEntry>;

/** kube's manager identifier: the entry's JSON without fields, time, and (for appliers) apiVersion. */
export function identifier(id: ManagerId): string {
  const parts = [`"manager":${goJson(id.manager)}`, `"operation":${goJson(id.operation)}`];
  if (id.operation === 'Update' && id.apiVersion) parts.push(`"apiVersion":${goJson(id.apiVersion)}`);
  if (id.subresource) parts.push(`"subresource":${goJson(id.subresource)}`);
  return `{${parts.join(',')}}`;
}

export function managerId(
  manager: string,
  operation: ManagerId['operation'],
  apiVersion: string,
  subresource?: string,
): ManagerId {
  const id: ManagerId = { manager: manager || 'unknown', operation };
  if (operation === 'Update') id.apiVersion = apiVersion;
  if (subresource) id.subresource = subresource;
  return id;
}

/** How kube names a manager in conflict messages: `"mgr"`, `"mgr" with subresource "status" using v1`. */
export function printManager(id: ManagerId): string {
  let s = JSON.stringify(id.manager);
  if (id.subresource) s += ` with subresource ${JSON.stringify(id.subresource)}`;
  if (id.operation === 'Update') s += ` using ${id.apiVersion ?? ''}`;
  return s;
}

export class ManagedFieldsError extends Error {}

/** Decodes a managedFields list; any invalid entry makes the whole list invalid, as in kube. */
export function decodeManagedFields(list: JsonValue | undefined | readonly ManagedFieldsEntry[]): Managed {
  const managed: Managed = new Map();
  if (list === undefined || list === null) return managed;
  if (!Array.isArray(list)) throw new ManagedFieldsError('managedFields must be a list');
  // Entries are untrusted JSON whatever their static type: a client may have sent them.
  (list as JsonValue[]).forEach((raw, i) => {
    const e = decodeEntry(raw, i);
    managed.set(identifier(e.id), e);
  });
  return managed;
}

function decodeEntry(raw: JsonValue, i: number): ManagerEntry {
  if (!isObject(raw)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
  const str = (k: string): string | undefined => {
    const v = raw[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new ManagedFieldsError(`${k} of managed fields entry ${i} must be a string`);
    return v;
  };
  const operation = str('operation');
  if (operation !== 'Apply' && operation !== 'Update')
    throw new ManagedFieldsError('operation must be `Apply` or `Update`');
  const apiVersion = str('apiVersion');
  if (!apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
  const fieldsType = str('fieldsType');
  if (!fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
  if (fieldsType !== 'FieldsV1')
    throw new ManagedFieldsError(`invalid fieldsType "${fieldsType}" in managed fields entry ${i}`);
  let set: FieldSet;
  try {
    set = FieldSet.fromFieldsV1(raw.fieldsV1);
  } catch (err) {
    if (err instanceof FieldsV1Error) throw new ManagedFieldsError(`error decoding set: ${err.message}`);
    throw err;
  }
  const id: ManagerId = { manager: str('manager') ?? '', operation };
  if (operation === 'Update') id.apiVersion = apiVersion;
  const subresource = str('subresource');
  if (subresource) id.subresource = subresource;
  const entry: ManagerEntry = { id, apiVersion, set };
  const time = str('time');
  if (time !== undefined) entry.time = time;
  return entry;
}

const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The managedFields list, in kube's order: appliers first, then by time, manager, version, subresource. */
export function encodeManagedFields(managed: Managed): WrittenManagedFieldsEntry[] {
  const entries: WrittenManagedFieldsEntry[] = [];
  for (const e of managed.values()) {
    if (e.set.isEmpty) continue;
    // Key order as kube serializes an entry.
    const out: WrittenManagedFieldsEntry = {
      manager: e.id.manager,
      operation: e.id.operation,
      apiVersion: e.apiVersion,
      ...(e.time !== undefined ? { time: e.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: e.set.toFieldsV1(),
      ...(e.id.subresource ? { subresource: e.id.subresource } : {}),
    };
    entries.push(out);
  }
  return entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/**
 * Paths no manager ever owns: type and identity fields the server sets. Removal is per path, not
 * per subtree, so `metadata.labels` and the like stay ownable.
 */
export const unownedPaths = FieldSet.of(
  [field('apiVersion')],
  [field('kind')],
  [field('metadata')],
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'managedFields',
    'resourceVersion',
  ].map((n) => [field('metadata'), field(n)]),
);

/**
 * Which top-level fields a write may own ("reset fields" in kube): the main resource of a kind
 * with a status subresource never owns `status`, and `/status` owns only `status`.
 */
export function ownableFilter(subresource: string | undefined, statusSubresource = true): (s: FieldSet) => FieldSet {
  if (subresource === 'status') return (s) => s.filterTopLevel((n) => n === 'status');
  if (!subresource && statusSubresource) return (s) => s.filterTopLevel((n) => n !== 'status');
  return (s) => s;
}

/**
 * The part of `obj` whose fields ownableFilter keeps: comparing only that part of two versions finds
 * the same ownable changes without walking the rest (a pod's spec on every status write).
 */
export function ownablePart(obj: JsonObject, subresource: string | undefined, statusSubresource = true): JsonObject {
  if (subresource === 'status') return obj.status === undefined ? {} : { status: obj.status };
  if (!subresource && statusSubresource && obj.status !== undefined) {
    const { status: _status, ...rest } = obj;
    return rest;
  }
  return obj;
}

const maxUpdateManagers = 10;

/**
 * Keeps at most ten Update entries by folding the oldest into one `ancient-changes` entry per
 * apiVersion, as kube does so that managedFields cannot grow without bound.
 */
export function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed].filter(([, e]) => e.id.operation === 'Update');
  if (updaters.length <= maxUpdateManagers) return;
  updaters.sort(([ka, a], [kb, b]) => seconds(a.time) - seconds(b.time) || cmp(ka, kb));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > maxUpdateManagers; i++) {
    const [key, e] = updaters[i];
    const bucketId = managerId('ancient-changes', 'Update', e.apiVersion);
    const bucket = identifier(bucketId);
    const first = firstByVersion.get(e.apiVersion);
    if (first === undefined) {
      firstByVersion.set(e.apiVersion, key);
      continue;
    }
    if (!managed.has(bucket)) {
      const f = managed.get(first)!;
      managed.delete(first);
      managed.set(bucket, { ...f, id: bucketId });
    }
    const b = managed.get(bucket)!;
    managed.set(bucket, { id: bucketId, apiVersion: e.apiVersion, set: e.set.union(b.set), time: e.time });
    managed.delete(key);
    length--;
  }
}

/** The object without `metadata.managedFields`, for comparing and merging content only. */
export function withoutManagedFields(obj: JsonObject): JsonObject {
  const meta = obj.metadata;
  if (!isObject(meta) || meta.managedFields === undefined) return obj;
  const rest: JsonObject = {};
  for (const k of presentKeys(meta)) if (k !== 'managedFields') rest[k] = meta[k];
  return { ...obj, metadata: rest };
}
