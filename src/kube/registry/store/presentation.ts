// The served view of an object versus its stored form: a CRD served in another version than it
// is stored in, or a kind served through a view (events.k8s.io over core Events).
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { StoredObject } from '../../storage/storage.ts';
import { apiVersionOf, type ResourceDef } from '../resource.ts';
import { parseStored } from './objects.ts';

function servedDiffersFromStored(def: ResourceDef): boolean {
  return Boolean(def.view) || Boolean(def.storageVersion && def.storageVersion !== def.version);
}

/** Converts a stored object to the served view of `def`. */
export function present(def: ResourceDef, obj: JsonObject): JsonObject {
  if (def.view) return def.view.fromStored(obj);
  if (def.storageVersion && def.storageVersion !== def.version) obj.apiVersion = apiVersionOf(def);
  return obj;
}

export function presentJson(def: ResourceDef, json: string): string {
  if (!servedDiffersFromStored(def)) return json;
  return JSON.stringify(present(def, JSON.parse(json) as JsonObject));
}

/**
 * The object a write returns. Storage stamped the resourceVersion on the very object it
 * serialized, so re-parsing the stored text is only needed when the served view differs.
 */
export function written(def: ResourceDef, storedObj: JsonObject, stored: StoredObject): JsonObject {
  if (servedDiffersFromStored(def)) return present(def, parseStored(stored));
  return storedObj;
}

export function toStored(def: ResourceDef, obj: JsonObject): JsonObject {
  if (def.view) return def.view.toStored(obj);
  if (def.storageVersion && def.storageVersion !== def.version) {
    obj.apiVersion = def.group ? `${def.group}/${def.storageVersion}` : def.storageVersion;
  }
  return obj;
}
