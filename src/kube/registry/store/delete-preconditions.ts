// What must hold before a deletion proceeds: the client's uid/resourceVersion preconditions,
// and the namespaces the system itself needs.
import { conflict, forbidden } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceDef } from '../resource.ts';
import { meta, refOf } from './objects.ts';
import type { DeleteOptions } from './types.ts';

const UNDELETABLE_NAMESPACES = ['default', 'kube-system', 'kube-public'];

export function checkDeletePreconditions(
  def: ResourceDef,
  name: string,
  current: JsonObject,
  preconditions: DeleteOptions['preconditions'],
): void {
  const cm = meta(current);
  if (preconditions?.uid !== undefined && preconditions.uid !== cm.uid) {
    throw conflict(
      refOf(def),
      name,
      `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(cm.uid)}`,
    );
  }
  if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== cm.resourceVersion) {
    throw conflict(
      refOf(def),
      name,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${String(cm.resourceVersion)}`,
    );
  }
  if (def.builtin && def.kind === 'Namespace' && UNDELETABLE_NAMESPACES.includes(name)) {
    throw forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, {
      name,
      kind: 'namespaces',
    });
  }
}
