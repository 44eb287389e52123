// Reading one object by name.
import { notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { StoredObject } from '../../storage/storage.ts';
import { objectKey } from '../keys.ts';
import type { ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { parseStored, refOf } from './objects.ts';
import { present, served } from './presentation.ts';

export function getStored(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
): StoredObject | undefined {
  return store.storage.get(objectKey(def, namespace, name));
}

export function getObject(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
): JsonObject {
  if (def.converter)
    throw new Error(
      `${def.resource}.${def.group}/${def.version} converts through a webhook: read it with getConvertedObject`,
    );
  const stored = getStored(store, def, namespace, name);
  if (!stored) throw notFound(refOf(def), name);
  return present(def, parseStored(stored));
}

/** One object in `def`'s version, through the CRD's conversion webhook when it has one. */
export async function getConvertedObject(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
): Promise<JsonObject> {
  const stored = getStored(store, def, namespace, name);
  if (!stored) throw notFound(refOf(def), name);
  return served(def, parseStored(stored));
}
