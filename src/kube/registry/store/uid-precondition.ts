// A PUT whose body carries a uid makes that uid a precondition of the write (registry/rest
// update.go defaultUpdatedObjectInfo.Preconditions): the stored object must have it, or the
// storage layer refuses with an invalid-object error the registry turns into 409 Conflict
// (storage/interfaces.go Preconditions.Check, storage/errors InterpretUpdateError).
import { conflict } from '../../../apimachinery/errors/index.ts';
import type { ResourceDef } from '../resource.ts';
import { refOf } from './objects.ts';

/** StorageError's ErrCodeInvalidObj (storage/errors.go). */
const ERR_CODE_INVALID_OBJ = 4;

export function checkUidPrecondition(
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  requested: unknown,
  stored: unknown,
): void {
  if (typeof requested !== 'string' || requested === '' || requested === stored) return;
  const detail = `Precondition failed: UID in precondition: ${requested}, UID in object meta: ${String(stored ?? '')}`;
  throw conflict(
    refOf(def),
    name,
    `StorageError: invalid object, Code: ${ERR_CODE_INVALID_OBJ}, Key: ${etcdKey(def, namespace, name)}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`,
  );
}

/** The key kube-apiserver stores the object under in etcd (its default storage prefixes). */
function etcdKey(def: ResourceDef, namespace: string | undefined, name: string): string {
  const s = def.storageOf ?? { group: def.group, resource: def.resource };
  let prefix = s.resource;
  if (!def.builtin || s.group === 'apiextensions.k8s.io') prefix = `${s.group}/${s.resource}`;
  else if (s.group === '' && s.resource === 'services') prefix = 'services/specs';
  else if (s.group === '' && s.resource === 'nodes') prefix = 'minions';
  return `/registry/${prefix}/${def.namespaced ? `${namespace ?? ''}/` : ''}${name}`;
}
