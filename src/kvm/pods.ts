// Typed views of the Pods the kvm-operator reads: the management cluster's node pods (one VM
// each) and, for the node drainer, the workload cluster's pods. Only the fields we read are named.
import type { KubeObject } from '../runtime/index.ts';
import { Annotations, Labels } from './api/labels.ts';

export interface ContainerState {
  running?: { startedAt?: string };
  waiting?: { reason?: string; message?: string };
  terminated?: { exitCode?: number; reason?: string; finishedAt?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  state?: ContainerState;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface PodSpec {
  nodeName?: string;
  containers?: { name: string; image?: string; [key: string]: unknown }[];
  terminationGracePeriodSeconds?: number;
  [key: string]: unknown;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** "Evicted" for pods the kubelet evicted under resource pressure. */
  reason?: string;
  conditions?: PodCondition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  podIP?: string;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

export function isDeleting(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined;
}

function allStatuses(pod: Pod): ContainerStatus[] {
  const s = pod.status ?? {};
  return [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? []), ...(s.ephemeralContainerStatuses ?? [])];
}

/**
 * Upstream's ArePodContainersTerminated (baseline): every reported container status is
 * Terminated. A pod with no statuses yet (never started) counts as terminated, as upstream.
 */
export function allContainersTerminated(pod: Pod): boolean {
  return (pod.status?.containerStatuses ?? []).every((c) => c.state?.terminated !== undefined);
}

/**
 * Upstream v3.18's !AnyPodContainerRunning: no container (init and ephemeral ones included) is
 * Running. Weaker than {@link allContainersTerminated}: a container stuck Waiting (crash loop)
 * does not hold a VM, so it must not hold a drain or an endpoint either.
 */
export function noContainerRunning(pod: Pod): boolean {
  return !allStatuses(pod).some((c) => c.state?.running !== undefined);
}

/** The VM's IP as k8s-endpoint-updater reported it; undefined until it has (the annotation starts ""). */
export function endpointIpOf(pod: Pod): string | undefined {
  return pod.metadata.annotations?.[Annotations.endpointIp] || undefined;
}

/** The Service (and Endpoints) the pod's VM serves: "master" or "worker". */
export function endpointServiceOf(pod: Pod): string | undefined {
  return pod.metadata.annotations?.[Annotations.endpointService] || undefined;
}

/** The workload cluster ID of a node pod. */
export function clusterIdOfPod(pod: Pod): string | undefined {
  return pod.metadata.labels?.[Labels.cluster] || undefined;
}

export function apiEndpointOfPod(pod: Pod): string | undefined {
  return pod.metadata.annotations?.[Annotations.apiEndpoint] || undefined;
}

/** The drained annotation parsed as Go's strconv.ParseBool does (upstream writes "True"). */
export function isPodDrained(pod: Pod): boolean {
  const v = pod.metadata.annotations?.[Annotations.drained];
  return v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}
