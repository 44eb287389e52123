// The status a kubelet would report for a pod whose sandbox is the VM: Running and Ready, the VM's
// address as the pod IP, the node's InternalIP as the host IP, every container running. Written
// through the status subresource as a merge patch, so it needs no resourceVersion.
import { createHash } from 'node:crypto';
import { formatTime } from '../../apimachinery/time/index.ts';
import { Pods } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';

export interface PodStatus {
  phase?: string;
  podIP?: string;
  hostIP?: string;
  startTime?: string;
  conditions?: Array<{ type: string; status: string; [k: string]: unknown }>;
  [k: string]: unknown;
}

type Pod = KubeObject & { spec?: { containers?: Array<{ name: string; image?: string }> }; status?: PodStatus };

const READY_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'];

/**
 * True on a pod whose VM the adaptor stopped trying to create (the create-retry guard); the message
 * names the provider's last error. Domain-qualified, as conditions outside Kubernetes' own are.
 */
export const VM_CREATE_FAILED_CONDITION = 'peerpods.io/VMCreateFailed';

export function hasTrueCondition(pod: KubeObject, type: string): boolean {
  return (pod as Pod).status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

/** Sets one condition; a strategic merge patch keyed by type leaves the others as they are. */
export async function writePodCondition(
  client: KubeClient,
  pod: KubeObject,
  condition: { type: string; status: string; reason: string; message: string },
  signal: AbortSignal,
): Promise<KubeObject> {
  const now = formatTime(new Date());
  const patch = { status: { conditions: [{ ...condition, lastProbeTime: null, lastTransitionTime: now }] } };
  return client.patch(Pods, pod.metadata.name as string, pod.metadata.namespace, patch, 'strategic', {
    subresource: 'status',
    signal,
  });
}

/** Whether the pod already shows this VM as running (nothing to write). */
export function reportsRunning(pod: KubeObject, podIp?: string): boolean {
  const st = (pod as Pod).status;
  if (st?.phase !== 'Running' || !st.podIP || (podIp !== undefined && st.podIP !== podIp)) return false;
  return READY_CONDITIONS.every((t) => st.conditions?.some((c) => c.type === t && c.status === 'True'));
}

export function runningStatus(pod: KubeObject, podIp: string, hostIp: string, instanceId: string): PodStatus {
  const p = pod as Pod;
  const now = formatTime(new Date());
  const old = p.status ?? {};
  // A pod that runs after all no longer carries the guard's verdict.
  const keep = (old.conditions ?? []).filter(
    (c) => !READY_CONDITIONS.includes(c.type) && c.type !== VM_CREATE_FAILED_CONDITION,
  );
  const containerId = (name: string): string =>
    `remote://${createHash('sha256').update(`${instanceId}/${p.metadata.uid}/${name}`).digest('hex')}`;
  return {
    phase: 'Running',
    conditions: [
      ...READY_CONDITIONS.map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now })),
      ...keep,
    ],
    ...(hostIp ? { hostIP: hostIp, hostIPs: [{ ip: hostIp }] } : {}),
    podIP: podIp,
    podIPs: [{ ip: podIp }],
    startTime: old.startTime ?? now,
    containerStatuses: (p.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      containerID: containerId(c.name),
      ready: true,
      started: true,
      restartCount: 0,
      lastState: {},
      state: { running: { startedAt: now } },
    })),
  };
}

export async function writeRunningStatus(
  client: KubeClient,
  pod: KubeObject,
  status: PodStatus,
  signal: AbortSignal,
): Promise<KubeObject> {
  return client.patch(Pods, pod.metadata.name as string, pod.metadata.namespace, { status }, 'merge', {
    subresource: 'status',
    signal,
  });
}
