export { Controller } from './controller.ts';
export type { ControllerOptions, WatchSource } from './controller.ts';
export { ControllerBuilder } from './builder.ts';
export type { BuilderControllerOptions, ControllerHost, ForOptions, InformerScope, OwnsOptions } from './builder.ts';
export { TerminalError, requestKey, parseRequestKey } from './reconciler.ts';
export type { Request, ReconcileContext, ReconcileResult, ReconcileFunc, Reconciler } from './reconciler.ts';
export { objectReconciler } from './object-reconciler.ts';
export type {
  Gone,
  GoneReconcileFunc,
  ObjectReconcileFunc,
  ObjectReconciler,
  ObjectReconcilerOptions,
  ObjectSource,
} from './object-reconciler.ts';
export { finalizer } from './finalizer.ts';
export type { CleanupResult, FinalizerHandlers, FinalizerSpec } from './finalizer.ts';
export {
  admits,
  admitsAll,
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  newPredicate,
  not,
  or,
  resourceVersionChanged,
} from './predicates.ts';
export type { EventKind, Predicate } from './predicates.ts';
export { groupOf, requestForObject, requestsForOwner, toRequests } from './handlers.ts';
export type { MapFunc, OwnerMapOptions } from './handlers.ts';
export type { ControllerEventHandler, ControllerInformer } from './source.ts';
export { prometheusControllerMetrics, noopControllerMetrics } from './metrics.ts';
export type { ControllerMetrics, ReconcileOutcome } from './metrics.ts';
