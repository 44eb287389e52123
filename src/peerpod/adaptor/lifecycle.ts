// The pod lifecycle histograms (KubeVirt's kubevirt_vmi_phase_transition_time_from_creation_seconds,
// for peer pods). Every duration runs between facts that outlive the adaptor: the pod's
// creationTimestamp and deletion request, the VM's creation time as its provider records it, and the
// Ready transition time the adaptor itself wrote. A pod resumed by a restarted adaptor is measured from
// the same origin, downtime included, never from when the new process first saw it.
//
// Each is observed right after the one write that makes the transition (the Running status, the
// finalizer release), and that write happens once per pod: a restarted adaptor finds the pod Running,
// or the PeerPod released, and observes nothing. A crash between the write and the observation loses
// that one sample rather than counting it twice.
import type { KubeObject } from '../../runtime/index.ts';
import type { Instance } from '../providers/index.ts';
import type { PeerPod } from '../api/index.ts';
import type { AdaptorDeps } from './deps.ts';
import type { StartKind } from './metrics.ts';
import { reportsRunning } from './pod-status.ts';

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

/** `before` is the pod as the reconcile found it, `written` as the Running status write returned it. */
export function observePodRunning(
  d: AdaptorDeps,
  before: KubeObject,
  written: KubeObject,
  vm: Instance,
  provider: string,
  start: StartKind = 'cold',
): void {
  // Running already, with another VM's IP: the recorded VM was replaced, the pod's start is long observed.
  if (reportsRunning(before)) return;
  const created = secondsOf(written.metadata.creationTimestamp);
  const conditions = (written.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  const ready = secondsOf(conditions.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime);
  if (created === undefined || ready === undefined) return;
  const labels = { provider, start };
  d.metrics.podCreatedToRunning.observe(labels, elapsed(created, ready));
  // A spare was made before its pod: the VM spans would measure the pool's idle time, not the start.
  if (start === 'claim') return;
  const vmCreated = vm.createdAt.getTime() / 1000;
  // Providers that do not report it give the epoch (an AWS instance without LaunchTime).
  if (!(vmCreated > 0)) return;
  d.metrics.podCreatedToVmCreated.observe(labels, elapsed(created, vmCreated));
  d.metrics.vmCreatedToPodRunning.observe(labels, elapsed(vmCreated, ready));
}

/** After the finalizers of `released` were removed on the pod's deletion. */
export function observePodStopped(d: AdaptorDeps, pod: KubeObject, released: PeerPod[]): void {
  const recorded = released.find((pp) => pp.spec?.instanceID);
  const deletion = secondsOf(pod.metadata.deletionTimestamp);
  if (!recorded || deletion === undefined) return;
  // The deletionTimestamp is the request plus the grace period the deleter gave the pod.
  const requested = deletion - (pod.metadata.deletionGracePeriodSeconds ?? 0);
  const provider = recorded.spec?.cloudProvider || d.providers.name();
  d.metrics.podDeletionToVmDeleted.observe({ provider }, elapsed(requested, Date.now() / 1000));
}

function secondsOf(time: string | null | undefined): number | undefined {
  const ms = time ? Date.parse(time) : NaN;
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

/**
 * Timestamps of the API are whole seconds (the end may read up to 1 s before a provider's precise
 * start) and come from different clocks: a negative span is rounding or skew, reported as 0.
 */
function elapsed(from: number, to: number): number {
  return Math.max(0, to - from);
}
