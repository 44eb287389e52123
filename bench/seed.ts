// Fast seeding through the real registry path: `internals.store.create` runs defaulting, admission,
// validation, managedFields and storage exactly as an HTTP CREATE does, minus HTTP, auth and
// JSON decoding of the request.
import type { ControlPlane } from '../src/kube/index.ts';
import { internalContext } from '../src/kube/registry/context.ts';
import type { ResourceDef } from '../src/kube/registry/resource.ts';
import { configMap } from './common.ts';

export function resourceDef(cp: ControlPlane, group: string, version: string, resource: string): ResourceDef {
  const def = cp.internals.catalog.lookup(group, version, resource);
  if (!def) throw new Error(`no resource ${group}/${version}/${resource}`);
  return def;
}

export async function ensureNamespace(cp: ControlPlane, name: string): Promise<void> {
  const def = resourceDef(cp, '', 'v1', 'namespaces');
  if (cp.internals.store.getStored(def, undefined, name)) return;
  await cp.internals.store.create(def, undefined, { metadata: { name } }, internalContext('bench'));
}

/** Creates `count` ConfigMaps `<prefix><i>` in `namespace` through the store; returns their stored JSON bytes. */
export async function seedConfigMaps(
  cp: ControlPlane,
  namespace: string,
  count: number,
  prefix = 'cm-',
): Promise<void> {
  await ensureNamespace(cp, namespace);
  const def = resourceDef(cp, '', 'v1', 'configmaps');
  for (let i = 0; i < count; i++) {
    await cp.internals.store.create(def, namespace, configMap(`${prefix}${i}`, namespace, i), internalContext('bench'));
  }
}

/** Sum of the stored (served) JSON text of every object under a storage key prefix. */
export function storedJsonBytes(cp: ControlPlane, keyPrefix: string): { count: number; bytes: number } {
  let bytes = 0;
  const items = cp.internals.storage.list(keyPrefix);
  for (const it of items) bytes += Buffer.byteLength(it.json);
  return { count: items.length, bytes };
}
