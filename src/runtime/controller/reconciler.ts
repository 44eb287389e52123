// The reconciler contract: one function from a key to "done", "come back later" or an error.
// Level-triggered: the reconciler is told which object to look at, never what changed.
import type { Logger } from '../util/logger.ts';

/** Identifies the object to reconcile; `namespace` is absent for cluster-scoped kinds. */
export interface Request {
  namespace?: string;
  name: string;
}

export interface ReconcileContext {
  /** Aborted when the controller must give up (shutdown grace period over, or leadership lost). */
  signal: AbortSignal;
  /** Carries `controller`, `namespace`, `name` and `reconcileId`. */
  log: Logger;
  /** Unique per call; also in every log line of this reconcile. */
  reconcileId: string;
}

/** Returning nothing means success; `requeueAfter` (ms) asks for another reconcile later. */
export interface ReconcileResult {
  requeueAfter?: number;
}

export type ReconcileFunc = (req: Request, ctx: ReconcileContext) => Promise<ReconcileResult | void>;

export interface Reconciler {
  reconcile: ReconcileFunc;
}

/**
 * Throw this to report an error that retrying cannot fix (invalid spec, ...): it is counted and
 * logged, but the key is not requeued until the object changes again.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** The queue key of a request: `namespace/name`, or `name` for cluster-scoped objects. */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

export function parseRequestKey(key: string): Request {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
