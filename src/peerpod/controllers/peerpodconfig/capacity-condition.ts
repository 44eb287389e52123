// The CapacityLimited condition and its Event: why the advertised VMs are what they are.
import type { ConditionInput, Recorder } from '../../../runtime/index.ts';
import { PeerPodConfigConditions as C } from '../../api/peerpodconfig.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { ownerKey } from './nodes.ts';
import type { ProviderHold } from './provider-capacity.ts';

export interface LimitDecision {
  configured: number;
  effective: number;
  /** Undefined when capacity evaluation is off. */
  hold: ProviderHold | undefined;
}

/**
 * The condition for `d`. While the limits and the reason stay, the message written when they were
 * decided stays too: the host's free memory moves all the time, and a status rewrite at each
 * recheck would be churn for every watcher of the config.
 */
export function capacityCondition(d: LimitDecision, cfg: PeerPodConfig): ConditionInput | undefined {
  const next = decide(d, cfg.metadata.generation);
  if (!next) return undefined;
  const prev = cfg.status?.conditions?.find((c) => c.type === C.CapacityLimited);
  const same =
    prev?.status === next.status &&
    prev.reason === next.reason &&
    cfg.status?.effectiveLimit === d.effective &&
    cfg.status?.configuredLimit === d.configured;
  return same ? { ...next, message: prev.message } : next;
}

function decide(d: LimitDecision, generation: number | undefined): ConditionInput | undefined {
  const { hold } = d;
  if (!hold) return undefined;
  const base = { type: C.CapacityLimited, observedGeneration: generation };
  const who = hold.provider ? `${hold.provider}: ` : '';
  if (hold.hold === undefined) {
    return { ...base, status: 'False', reason: 'CapacityUnknown', message: `${who}${hold.message}` };
  }
  if (d.effective < d.configured) {
    return {
      ...base,
      status: 'True',
      reason: hold.reason,
      message: `limit ${d.configured} lowered to ${d.effective}: ${who}${hold.message}`,
    };
  }
  return {
    ...base,
    status: 'False',
    reason: 'WithinCapacity',
    message: `limit ${d.configured} fits (${hold.hold} can be held): ${who}${hold.message}`,
  };
}

/**
 * One Event when the effective limit moves (or a first evaluation already caps it), not per
 * reconcile. The last value announced is kept here as well as read from the status: a reconcile
 * working from a cached copy that predates its own status write would announce the change twice.
 */
export class LimitEvents {
  private readonly announced = new Map<string, number>();

  constructor(private readonly events: Recorder) {}

  record(cfg: PeerPodConfig, d: LimitDecision): void {
    const key = ownerKey(cfg);
    const before = this.announced.get(key) ?? cfg.status?.effectiveLimit;
    this.announced.set(key, d.effective);
    if (before === d.effective || (before === undefined && d.effective === d.configured)) return;
    const why = d.hold && d.effective < d.configured ? `${d.hold.reason}: ${d.hold.message}` : 'the configured limit';
    const message = `effective limit ${before ?? d.configured} -> ${d.effective} (configured ${d.configured}; ${why})`;
    if (d.effective < d.configured) this.events.warning(cfg, 'CapacityLimited', message);
    else this.events.normal(cfg, 'CapacityRestored', message);
  }

  forget(cfg: PeerPodConfig): void {
    this.announced.delete(ownerKey(cfg));
  }
}
