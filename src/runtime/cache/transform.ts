// Transforms run on every object before it enters the cache. They exist to cut memory: a cached
// Pod's managedFields are often larger than the rest of it, and the cache never needs them.
import type { KubeObject } from '../client/types.ts';

/** Returns the object to store (may be the same object, modified). Must not throw for valid objects. */
export type Transform<T extends KubeObject = KubeObject> = (obj: T) => T;

/** Drops `metadata.managedFields` (server-side apply bookkeeping). The default transform. */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata && 'managedFields' in obj.metadata) delete obj.metadata.managedFields;
  return obj;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops kubectl's last-applied-configuration annotation too. Not the default: code that diffs
 * client-side applies needs it.
 */
export function stripLastApplied<T extends KubeObject>(obj: T): T {
  const ann = obj.metadata?.annotations;
  if (ann && LAST_APPLIED in ann) delete ann[LAST_APPLIED];
  return obj;
}

/** Runs transforms left to right. */
export function composeTransforms<T extends KubeObject>(...fns: Transform<T>[]): Transform<T> {
  return (obj) => fns.reduce((o, f) => f(o), obj);
}

/** Recursively freezes an object, so accidental writes to cached objects throw (strict mode) in tests. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
