// Provider create calls that outlived their attempt's timeout, by pod UID. The attempt has been
// counted as failed, but the call may still make a VM; until it settles, no new create for that pod
// starts (two calls in flight could leave two VMs), and a VM it returns late is deleted.
//
// The one piece of adaptor state kept in memory, and rightly: the call lives in this process and
// dies with it. A cloud may still finish a create whose caller died; that VM carries the pod's tag,
// so the next attempt's cleanup finds it, or the orphan sweep once the pod and its PeerPod are gone.
import type { Logger } from '../../runtime/index.ts';
import type { Instance } from '../providers/index.ts';

export class LateCreates {
  private readonly calls = new Map<string, Promise<void>>();

  constructor(private readonly log: Logger) {}

  /** Whether a timed-out create for this pod is still running (or its late VM is being deleted). */
  running(podUid: string): boolean {
    return this.calls.has(podUid);
  }

  /** Watches `call` to its end; a VM it returns is passed to `discard` before the pod counts as idle. */
  track(podUid: string, call: Promise<Instance>, discard: (vm: Instance) => Promise<void>): void {
    const settled = call
      .then(discard, () => undefined)
      .catch((err: unknown) => {
        // The VM is tagged with the pod: the next attempt's cleanup deletes it.
        this.log.warn({ err, podUid }, 'deleting the VM of a timed-out create failed');
      })
      .finally(() => {
        if (this.calls.get(podUid) === settled) this.calls.delete(podUid);
      });
    this.calls.set(podUid, settled);
  }

  /** Settles when every tracked call has (tests, shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.calls.values()]);
  }
}
