// The back-off between deletions of failed daemon pods on one node (kube's failedPodsBackoff, a
// flowcontrol.Backoff of 1 s doubling to 15 min): a kubelet that keeps rejecting the pod must not
// make the controller delete and recreate it in a hot loop.
import { exponentialDelay } from '../../../../apimachinery/backoff.ts';

const INITIAL_MS = 1000;
const MAX_MS = 15 * 60_000;

export class FailedPodsBackoff {
  private readonly entries = new Map<string, { attempt: number; lastUpdate: number }>();

  /** Time left before a failed pod of `key` may be deleted again, or 0. */
  remaining(key: string, now: number): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    const left = e.lastUpdate + exponentialDelay(e.attempt, INITIAL_MS, MAX_MS) - now;
    return left > 0 ? left : 0;
  }

  /** Records a deletion; an entry idle for twice the cap starts over (Backoff.Next's hasExpired). */
  next(key: string, now: number): void {
    const e = this.entries.get(key);
    const expired = !e || now - e.lastUpdate > 2 * MAX_MS;
    this.entries.set(key, { attempt: expired ? 0 : e.attempt + 1, lastUpdate: now });
  }

  /** Drops the entries of a DaemonSet that went away (keys start with its uid). */
  forgetOwner(uid: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(`${uid}/`)) this.entries.delete(k);
  }
}
