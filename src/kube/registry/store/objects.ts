// How the store reads and shapes object JSON: metadata access, serialization order, and the
// parts two versions of an object are compared on.
import type { ResourceRef } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { StoredObject } from '../../storage/storage.ts';
import type { ResourceDef } from '../resource.ts';

export function refOf(def: ResourceDef): ResourceRef {
  return { group: def.group, resource: def.resource };
}

export function parseStored(stored: StoredObject): JsonObject {
  return JSON.parse(stored.json) as JsonObject;
}

export function meta(obj: JsonObject): ObjectMeta {
  if (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata as ObjectMeta;
}

/** Puts apiVersion, kind and metadata first, as kube-apiserver serializes. */
export function ordered(obj: JsonObject): JsonObject {
  const { apiVersion, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

/** Everything but metadata (and status when `ignoreStatus`): what bumps `generation`. */
export function specPart(obj: JsonObject, ignoreStatus: boolean): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind' || (ignoreStatus && k === 'status')) continue;
    out[k] = v;
  }
  return out;
}

export function withoutVolatileMeta(obj: JsonObject): JsonObject {
  const m = { ...(obj.metadata as ObjectMeta) };
  delete m.resourceVersion;
  delete m.managedFields;
  return { ...obj, metadata: m as JsonObject };
}
