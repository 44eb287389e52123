// Resource handlers: a controller built as an ordered list of small handlers, each responsible for
// one kind of object around the primary resource (a namespace, the deployments, the services...).
// A handler may end its own turn, stop the whole chain, or keep the primary's finalizer, through
// the flags on its context. This is operatorkit's model carried onto a level-triggered reconciler.
import type { Logger } from '../util/logger.ts';

/** Which path of the chain runs: `update` for live objects, `delete` once deletion was requested. */
export type HandlerEvent = 'update' | 'delete';

export interface HandlerContext {
  readonly event: HandlerEvent;
  readonly signal: AbortSignal;
  /** Carries `controller`, `handler`, `namespace`, `name`, `reconcileId`. */
  readonly log: Logger;
  /** Skip the rest of the current handler; the next handler still runs. */
  cancelHandler(reason: string): void;
  /** Stop the chain after the current step. On delete the finalizer then stays. */
  cancelReconciliation(reason: string): void;
  /** On delete: keep the finalizer even if the chain completes (something is still draining). */
  keepFinalizer(reason: string): void;
  /** Ask for another reconcile within `ms` (the smallest request wins). */
  requeueAfter(ms: number): void;
  readonly handlerCanceled: boolean;
  readonly reconciliationCanceled: boolean;
}

export interface ResourceHandler<T> {
  /** Metric label and log field; unique within a chain. */
  readonly name: string;
  ensureCreated(obj: T, ctx: HandlerContext): Promise<void>;
  ensureDeleted(obj: T, ctx: HandlerContext): Promise<void>;
}
