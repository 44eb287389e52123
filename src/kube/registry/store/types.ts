// The options and results the store's verbs exchange with their callers.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { Admission } from '../context.ts';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  object: JsonObject;
  /** False while the deletion waits for finalizers or a grace period. */
  deleted: boolean;
}

export interface WriteResult {
  object: JsonObject;
  /** True when a create happened (201), false for an update (200). */
  created: boolean;
}

export interface StoreOptions {
  admission?: Admission;
  now?: () => Date;
}
