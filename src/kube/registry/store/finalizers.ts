// Finalizers as deletion sees them: the ones a propagation policy adds, and the namespace's own
// spec.finalizers that also hold its deletion back.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ResourceDef } from '../resource.ts';
import { meta } from './objects.ts';
import type { PropagationPolicy } from './types.ts';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** The object's finalizers after a delete with `policy`; any policy but Orphan lifts orphaning. */
export function propagationFinalizers(existing: string[], policy: PropagationPolicy | undefined): string[] {
  const finalizers = [...existing];
  if (policy === 'Orphan' && !finalizers.includes(FINALIZER_ORPHAN)) finalizers.push(FINALIZER_ORPHAN);
  if (policy === 'Foreground' && !finalizers.includes(FINALIZER_FOREGROUND)) finalizers.push(FINALIZER_FOREGROUND);
  if (policy !== undefined && policy !== 'Orphan') {
    const i = finalizers.indexOf(FINALIZER_ORPHAN);
    if (i >= 0) finalizers.splice(i, 1);
  }
  return finalizers;
}

export function namespaceSpecFinalizers(def: ResourceDef, obj: JsonObject): string[] {
  if (!(def.builtin && def.kind === 'Namespace')) return [];
  const spec = (obj.spec ?? {}) as JsonObject;
  return Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
}

/** Whether anything still holds `obj`'s deletion back. */
export function hasFinalizers(def: ResourceDef, obj: JsonObject): boolean {
  return (meta(obj).finalizers ?? []).length > 0 || namespaceSpecFinalizers(def, obj).length > 0;
}
