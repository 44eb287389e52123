// What a simulated node looks like in the API: the Node a kubelet would register, its Lease in
// kube-node-lease, and the conditions it reports. Pure builders, no I/O.
import { arch, release } from 'node:os';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { formatMicroTime, formatTime } from '../../../apimachinery/time/index.ts';
import { KUBE_VERSION } from '../../version.ts';
import { DEFAULT_CRASH_LOOP_BACKOFF, type CrashLoopBackOff } from '../../kubelet/container-runs.ts';

export const SIMULATED_LABEL = 'peerpods.io/simulated';
export const WORKER_LABEL = 'node.kubernetes.io/worker';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface SimulatedNodeConfig {
  /** Capacity (= allocatable) of each new node. */
  capacity: Record<string, string>;
  /** Lease renewal interval. Default 10 s, like the kubelet's lease. */
  heartbeatIntervalMs: number;
  /**
   * How often a node with nothing new to report still posts its status (a fresh lastHeartbeatTime
   * on its conditions): kube's nodeStatusReportFrequency, 5 min. The Lease says the node is alive
   * in between; a change (setReady, a restarted kubelet) is posted at once.
   */
  statusReportIntervalMs: number;
  /**
   * Simulated container shutdown on graceful deletion (capped by the pod's grace period). Pods
   * with a running preStop hook are not capped: they stay Running for their whole grace period.
   */
  shutdownMs: number;
  leaseDurationSeconds: number;
  /** Restart delays of containers that keep exiting (tests shorten them). */
  crashLoopBackOff: CrashLoopBackOff;
}

export const DEFAULT_NODE_CONFIG: SimulatedNodeConfig = {
  capacity: {
    cpu: '4',
    memory: '16Gi',
    pods: '110',
    'ephemeral-storage': '100Gi',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  },
  heartbeatIntervalMs: 10_000,
  statusReportIntervalMs: 300_000,
  shutdownMs: 1000,
  leaseDurationSeconds: 40,
  crashLoopBackOff: DEFAULT_CRASH_LOOP_BACKOFF,
};

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
export const NODE_ARCH = GO_ARCH[arch()] ?? arch();

/**
 * The node's InternalIP: 127.0.0.<i>; 10.244.<i>.0/24 for its pods. Where processes really run
 * (hostNetwork pods listen on the node IP), 127.<block>.0.<i> in the process runtime's loopback
 * block instead, so two clusters on one machine never share an address.
 */
export function nodeIp(index: number, block?: number): string {
  if (block !== undefined && index > 0 && index < 256) return `127.${block}.0.${index}`;
  return `127.0.${index >> 8}.${index & 255}`;
}

export function podCidrBase(index: number): string {
  return `10.${244 + (index >> 8)}.${index & 255}`;
}

/**
 * The loopback twin of the node's pod CIDR, for pods whose processes really listen:
 * 127.<block+i>.<j>, the block claimed by the process runtime (kubelet/process/loopback-block.ts).
 */
export function processPodCidrBase(index: number, block = 244): string {
  return `127.${block + (index >> 8)}.${index & 255}`;
}

export function nodeConditions(ready: boolean, now = formatTime(new Date())): JsonObject[] {
  const cond = (type: string, status: string, reason: string, message: string): JsonObject => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  return [
    cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    readyCondition(ready, now),
  ];
}

export function readyCondition(ready: boolean, now = formatTime(new Date())): JsonObject {
  return {
    type: 'Ready',
    status: ready ? 'True' : 'False',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
    reason: ready ? 'KubeletReady' : 'KubeletNotReady',
    message: ready ? 'kubelet is posting ready status' : 'simulated node marked not ready',
  };
}

export function nodeStatus(
  name: string,
  index: number,
  config: SimulatedNodeConfig,
  ready = true,
  loopbackBlock?: number,
): JsonObject {
  return {
    capacity: { ...config.capacity },
    allocatable: { ...config.capacity },
    conditions: nodeConditions(ready),
    addresses: [
      { type: 'InternalIP', address: nodeIp(index, loopbackBlock) },
      { type: 'Hostname', address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: `peerpods-sim-${index}`,
      systemUUID: `00000000-0000-0000-0000-${index.toString(16).padStart(12, '0')}`,
      bootID: `peerpods-sim-boot-${index}`,
      kernelVersion: release(),
      osImage: 'peerpods simulated node',
      containerRuntimeVersion: 'simulated://1.0.0',
      kubeletVersion: KUBE_VERSION.gitVersion,
      kubeProxyVersion: KUBE_VERSION.gitVersion,
      operatingSystem: 'linux',
      architecture: NODE_ARCH,
    },
  };
}

export function nodeObject(
  name: string,
  index: number,
  config: SimulatedNodeConfig,
  loopbackBlock?: number,
): JsonObject {
  return {
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': NODE_ARCH,
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': NODE_ARCH,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        [WORKER_LABEL]: '',
        [SIMULATED_LABEL]: 'true',
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { podCIDR: `${podCidrBase(index)}.0/24`, podCIDRs: [`${podCidrBase(index)}.0/24`] },
    status: nodeStatus(name, index, config, true, loopbackBlock),
  };
}

export function leaseObject(node: JsonObject, config: SimulatedNodeConfig): JsonObject {
  const meta = node.metadata as { name: string; uid: string };
  return {
    metadata: {
      name: meta.name,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: meta.name, uid: meta.uid }],
    },
    spec: {
      holderIdentity: meta.name,
      leaseDurationSeconds: config.leaseDurationSeconds,
      renewTime: formatMicroTime(new Date()),
    },
  };
}
