// Everything the manager runs (controllers, servers, caches, user tasks) is a Runnable, as in
// controller-runtime: one method that runs until its signal aborts, so start/stop ordering and
// leader election are handled in one place.

export interface Runnable {
  /**
   * Runs until `signal` aborts, then stops and resolves. Rejecting before the signal aborts is a
   * fatal error for the manager. A runnable that needs leader election may be started again after
   * it stopped (when this replica wins the lease back), so it must not keep per-run state.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Whether it runs only on the elected leader. Default true, as controller-runtime. */
  needLeaderElection?: boolean;
  /** Shown in logs and errors. */
  name?: string;
}

/**
 * The `reason` of the signal a manager aborts: why the runnable is being stopped and how long it
 * may take to finish in-flight work before it must give up (e.g. abort its reconciles).
 */
export class StopRequest extends Error {
  constructor(
    readonly kind: 'shutdown' | 'leadership-lost',
    /** Time left to finish in-flight work, ms. */
    readonly graceMs: number,
  ) {
    super(kind === 'shutdown' ? 'manager is shutting down' : 'leader election lost');
    this.name = 'StopRequest';
  }
}

/** The grace period carried by an aborted signal, or `fallbackMs` when it carries none. */
export function graceOf(signal: AbortSignal, fallbackMs: number): number {
  return signal.reason instanceof StopRequest ? signal.reason.graceMs : fallbackMs;
}

/** Adapts a plain function to a {@link Runnable}. */
export function runnableFunc(
  fn: (signal: AbortSignal) => Promise<void>,
  opts: { needLeaderElection?: boolean; name?: string } = {},
): Runnable {
  return { start: fn, needLeaderElection: opts.needLeaderElection ?? true, ...(opts.name ? { name: opts.name } : {}) };
}
