// The `endpoints.kubernetes.io/last-change-trigger-time` value (pkg/controller/util/endpoint/
// trigger_time_tracker.go): when the change that caused a sync happened. A pod's change is its
// Ready condition's last transition, a Service's its creation; the value is the earliest of those
// that moved since the previous sync, or the Service's creation on its first sync.
import { statusCondition } from '../../../apimachinery/core/index.ts';
import { formatTime } from '../../../apimachinery/time/index.ts';
import type { WorkloadObject } from '../workloads/common.ts';

interface ServiceState {
  pods: Map<string, number>;
  service: number;
}

function ms(t: unknown): number {
  const v = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isNaN(v) ? 0 : v;
}

export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  /** The trigger time for this sync as RFC 3339, or undefined (the annotation is then removed). */
  compute(key: string, svc: WorkloadObject, pods: WorkloadObject[]): string | undefined {
    const known = this.states.get(key);
    const state: ServiceState = { pods: new Map(), service: ms(svc.metadata.creationTimestamp) };
    let min = 0;
    for (const pod of pods) {
      const t = ms(statusCondition(pod, 'Ready')?.lastTransitionTime);
      if (t === 0) continue;
      state.pods.set(pod.metadata.name!, t);
      if (t > (known?.pods.get(pod.metadata.name!) ?? 0)) min = min === 0 ? t : Math.min(min, t);
    }
    if (state.service > (known?.service ?? 0)) min = min === 0 ? state.service : Math.min(min, state.service);
    this.states.set(key, state);
    const at = known ? min : state.service;
    // Both sources are metav1.Time (whole seconds), so RFC3339Nano prints as RFC 3339.
    return at === 0 ? undefined : formatTime(at);
  }

  forget(key: string): void {
    this.states.delete(key);
  }
}
