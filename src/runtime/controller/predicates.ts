// Event filters, as controller-runtime's pkg/predicate: each hook decides whether an informer event
// may enqueue anything. A missing hook lets the event through, so a predicate about updates
// (generationChanged, ...) never hides creations or deletions.
import type { KubeObject } from '../client/types.ts';
import { deepEqual } from '../../apimachinery/json/index.ts';

export interface Predicate<T extends KubeObject = KubeObject> {
  /** `isInitialList` is true for objects delivered by the informer's initial list (or a relist). */
  create?(obj: T, isInitialList: boolean): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

export type EventKind = 'create' | 'update' | 'delete';

/** Evaluates one predicate for one event. */
export function admits<T extends KubeObject>(
  p: Predicate<T>,
  kind: EventKind,
  obj: T,
  old?: T,
  isInitialList = false,
): boolean {
  switch (kind) {
    case 'create':
      return p.create ? p.create(obj, isInitialList) : true;
    case 'update':
      return p.update ? p.update(old as T, obj) : true;
    case 'delete':
      return p.delete ? p.delete(obj) : true;
  }
}

/** Evaluates all predicates (logical and). */
export function admitsAll<T extends KubeObject>(
  ps: readonly Predicate<T>[],
  kind: EventKind,
  obj: T,
  old?: T,
  isInitialList = false,
): boolean {
  return ps.every((p) => admits(p, kind, obj, old, isInitialList));
}

/** Builds a predicate from the hooks given; missing hooks let events through. */
export function newPredicate<T extends KubeObject = KubeObject>(hooks: Predicate<T>): Predicate<T> {
  return hooks;
}

/**
 * Updates pass only when `metadata.generation` changed, i.e. the spec changed. Status-only writes
 * (the controller's own) and metadata edits are dropped. Kinds with no generation never pass updates.
 */
export function generationChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => o.metadata.generation !== n.metadata.generation };
}

/** Updates pass only when the labels changed. */
export function labelsChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => !deepEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}) };
}

/** Updates pass only when the annotations changed. */
export function annotationsChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => !deepEqual(o.metadata.annotations ?? {}, n.metadata.annotations ?? {}) };
}

/** Updates pass only when the resourceVersion changed: drops periodic resyncs, keeps every real write. */
export function resourceVersionChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion };
}

/** Passes the events that every one of `ps` passes. */
export function and<T extends KubeObject = KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj, initial) => ps.every((p) => admits(p, 'create', obj, undefined, initial)),
    update: (o, n) => ps.every((p) => admits(p, 'update', n, o)),
    delete: (obj) => ps.every((p) => admits(p, 'delete', obj)),
  };
}

/** Passes the events that at least one of `ps` passes (none given: nothing passes). */
export function or<T extends KubeObject = KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj, initial) => ps.some((p) => admits(p, 'create', obj, undefined, initial)),
    update: (o, n) => ps.some((p) => admits(p, 'update', n, o)),
    delete: (obj) => ps.some((p) => admits(p, 'delete', obj)),
  };
}

/** Passes exactly the events `p` drops (including kinds `p` has no hook for: those `p` passes). */
export function not<T extends KubeObject = KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (obj, initial) => !admits(p, 'create', obj, undefined, initial),
    update: (o, n) => !admits(p, 'update', n, o),
    delete: (obj) => !admits(p, 'delete', obj),
  };
}
