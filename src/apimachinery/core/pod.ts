// Pod facts read the same way by the control plane, the scheduler and the operators (kube's podutil).
import { statusCondition } from './conditions.ts';

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: object): boolean {
  return statusCondition(pod, 'Ready')?.status === 'True';
}

/** The pod has finished for good (phase Succeeded or Failed): it holds no resources any more. */
export function isPodTerminal(pod: object): boolean {
  const phase = (pod as { status?: { phase?: unknown } }).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
