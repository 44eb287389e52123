// The served view of an object versus its stored form: a CRD served in another version than it
// is stored in, or a kind served through a view (events.k8s.io over core Events). Strategy None
// only rewrites apiVersion, synchronously; a CRD with a conversion webhook (def.converter) crosses
// versions through it, so its forms are promises — the only defs that pay for the webhook path.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { StoredObject } from '../../storage/storage.ts';
import { apiVersionOf, type ResourceDef } from '../resource.ts';
import { ordered, parseStored } from './objects.ts';

function servedDiffersFromStored(def: ResourceDef): boolean {
  return Boolean(def.view) || Boolean(def.storageVersion && def.storageVersion !== def.version);
}

/** Converts a stored object to the served view of `def` (never calls a conversion webhook). */
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
 * A stored object in `def`'s version, through the conversion webhook when the CRD has one and the
 * object is stored in another version (kube's storage codec decodes into the requested version).
 */
export function served(def: ResourceDef, obj: JsonObject): JsonObject | Promise<JsonObject> {
  if (!def.converter) return present(def, obj);
  return convertedTo(def, [obj], apiVersionOf(def), false).then(([o]) => o);
}

/** One stored object's JSON in `def`'s version (defs with a converter): a watch event's object. */
export async function servedJson(def: ResourceDef, json: string): Promise<string> {
  const obj = JSON.parse(json) as JsonObject;
  const [converted] = await convertedTo(def, [obj], apiVersionOf(def), false);
  return converted === obj ? json : JSON.stringify(converted);
}

/** The served JSON of a list's stored items, converted in one review (defs with a converter). */
export async function servedListJson(def: ResourceDef, items: readonly string[]): Promise<string[]> {
  const objects = items.map((json) => JSON.parse(json) as JsonObject);
  const converted = await convertedTo(def, objects, apiVersionOf(def), true);
  return converted.map((o, i) => (o === objects[i] ? items[i] : JSON.stringify(o)));
}

/**
 * The object a write returns. Storage stamped the resourceVersion on the very object it
 * serialized, so re-parsing the stored text is only needed when the served view differs.
 */
export function written(
  def: ResourceDef,
  storedObj: JsonObject,
  stored: StoredObject,
): JsonObject | Promise<JsonObject> {
  if (def.converter) return served(def, parseStored(stored));
  if (servedDiffersFromStored(def)) return present(def, parseStored(stored));
  return storedObj;
}

/** The form a write stores: the storage version (kube's storage codec encodes into it). */
export function toStored(def: ResourceDef, obj: JsonObject): JsonObject | Promise<JsonObject> {
  if (def.view) return def.view.toStored(obj);
  if (def.storageVersion && def.storageVersion !== def.version) {
    const storageApiVersion = def.group ? `${def.group}/${def.storageVersion}` : def.storageVersion;
    if (def.converter) return convertedTo(def, [obj], storageApiVersion, false).then(([o]) => o);
    obj.apiVersion = storageApiVersion;
  }
  return obj;
}

async function convertedTo(
  def: ResourceDef,
  objects: JsonObject[],
  apiVersion: string,
  asList: boolean,
): Promise<JsonObject[]> {
  const converted = await def.converter!.convert(objects, apiVersion, asList);
  return converted.map((o, i) => (o === objects[i] ? o : ordered(def, o)));
}
