// How the store reads and shapes object JSON: metadata access, serialization order, and the
// parts two versions of an object are compared on.
import type { ResourceRef } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import type { StoredObject } from '../../storage/storage.ts';
import { builtinFieldOrder, sortKeysDeep } from '../../builtins/index.ts';
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

const fieldOrders = new WeakMap<ResourceDef, (obj: JsonObject) => JsonObject>();

/**
 * The object with its keys in the order kube-apiserver serializes it: a built-in kind in its Go
 * struct's field order, a custom resource with every level's keys sorted.
 */
export function ordered(def: ResourceDef, obj: JsonObject): JsonObject {
  let order = fieldOrders.get(def);
  if (!order) {
    order = def.builtin
      ? builtinFieldOrder(def.group, def.version, def.kind)
      : (o: JsonObject) => sortKeysDeep(o) as JsonObject;
    fieldOrders.set(def, order);
  }
  return order(obj);
}

/**
 * A new object in its stored order. Storage stamps resourceVersion into the object it is given,
 * so its slot among the metadata fields is reserved first.
 */
export function orderedForStorage(def: ResourceDef, obj: JsonObject): JsonObject {
  meta(obj).resourceVersion ??= '';
  return ordered(def, obj);
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
