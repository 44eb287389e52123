// The kubelet's per-container restart back-off (client-go's flowcontrol.Backoff as kuberuntime's
// doBackOff uses it, pkg/kubelet/kuberuntime/kuberuntime_manager.go): the first restart of a
// container is immediate; an exit after that waits the entry's delay (CrashLoopBackOff), which
// starts at 10 s and doubles on every restart up to 5 min; an entry not used for 2 × the cap
// (10 min) is forgotten, so a container that ran that long restarts at once again. Shared by the
// simulated containers (container-runs.ts) and the process runtime (process/).
import { formatDuration } from '../../apimachinery/time/index.ts';

export interface CrashLoopBackOff {
  /** First delay before restarting a container that keeps exiting. Default 10 s (kubelet). */
  initialMs: number;
  /** Cap of the doubling delay. Default 5 min (kubelet's MaxContainerBackOff). */
  maxMs: number;
}

export const DEFAULT_CRASH_LOOP_BACKOFF: CrashLoopBackOff = { initialMs: 10_000, maxMs: 300_000 };

interface Entry {
  delayMs: number;
  lastRestart: number;
}

/** Back-off entries by container key (`<pod key>\0<container>`). */
export class RestartBackoffs {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly config: CrashLoopBackOff) {}

  /**
   * How long a container that just exited must wait before its restart: 0 for an immediate restart
   * (no entry, or one that expired), else the entry's current delay.
   */
  delayAfterExit(key: string, nowMs = Date.now()): number {
    const entry = this.entries.get(key);
    if (!entry || nowMs - entry.lastRestart > 2 * this.config.maxMs) return 0;
    return entry.delayMs;
  }

  /** Records a restart (kubelet's Backoff.Next): a fresh or expired entry starts at the initial delay. */
  restarted(key: string, nowMs = Date.now()): void {
    const entry = this.entries.get(key);
    const live = entry && nowMs - entry.lastRestart <= 2 * this.config.maxMs;
    const delayMs = live ? Math.min(this.config.maxMs, 2 * entry.delayMs) : this.config.initialMs;
    this.entries.set(key, { delayMs, lastRestart: nowMs });
  }

  /** Drops the entries of a pod that is gone (`prefix` = `<pod key>\0`). */
  forget(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}

/** The waiting message of a container in CrashLoopBackOff (kuberuntime_manager.go doBackOff). */
export function backOffMessage(
  delayMs: number,
  container: string,
  pod: { name?: string; namespace?: string; uid?: string },
): string {
  return (
    `back-off ${formatDuration(delayMs)} restarting failed container=${container} ` +
    `pod=${pod.name}_${pod.namespace}(${pod.uid})`
  );
}
