// Everything derived from a KVMConfig alone: names, labels, node lists and the VM sizing rules.
// Pure functions, so the handlers stay small and every rule has a table test.
import { Annotations, Labels, MANAGED_BY } from './api/labels.ts';
import type { NodeRole } from './api/labels.ts';
import type { KVMConfig, KVMNodeSpec } from './api/kvmconfig.ts';

export function clusterId(c: KVMConfig): string {
  return c.spec.cluster.id;
}

/** Every per-cluster object lives in a namespace named after the cluster. */
export function clusterNamespace(c: KVMConfig): string {
  return c.spec.cluster.id;
}

export function customerId(c: KVMConfig): string {
  return c.spec.cluster.customer?.id ?? '';
}

export function releaseVersionOf(c: KVMConfig): string {
  return c.metadata.labels?.[Labels.releaseVersion] ?? '';
}

export function operatorVersionOf(c: KVMConfig): string {
  return c.metadata.labels?.[Labels.operatorVersion] ?? '';
}

export interface ClusterNode {
  id: string;
  role: NodeRole;
  /** Position in its role's list: index into spec.kvm.masters / spec.kvm.workers. */
  position: number;
  vm: KVMNodeSpec;
}

/** Why the spec cannot be acted on, or undefined when it can. */
export function specProblem(c: KVMConfig): string | undefined {
  const cl = c.spec.cluster;
  const kvm = c.spec.kvm;
  if ((cl.masters?.length ?? 0) !== (kvm.masters?.length ?? 0))
    return `spec.cluster.masters has ${cl.masters?.length ?? 0} entries but spec.kvm.masters has ${kvm.masters?.length ?? 0}; they are parallel lists`;
  if ((cl.workers?.length ?? 0) !== (kvm.workers?.length ?? 0))
    return `spec.cluster.workers has ${cl.workers?.length ?? 0} entries but spec.kvm.workers has ${kvm.workers?.length ?? 0}; they are parallel lists`;
  const ids = new Set<string>();
  for (const n of [...(cl.masters ?? []), ...(cl.workers ?? [])]) {
    if (ids.has(n.id)) return `node ID ${n.id} is listed twice`;
    ids.add(n.id);
  }
  return undefined;
}

/** Masters then workers, each paired with its VM spec (lists of unequal length are cut short). */
export function clusterNodes(c: KVMConfig): ClusterNode[] {
  const out: ClusterNode[] = [];
  const add = (role: NodeRole, refs: { id: string }[] = [], vms: KVMNodeSpec[] = []): void => {
    refs.forEach((r, i) => {
      if (vms[i]) out.push({ id: r.id, role, position: i, vm: vms[i] });
    });
  };
  add('master', c.spec.cluster.masters, c.spec.kvm.masters);
  add('worker', c.spec.cluster.workers, c.spec.kvm.workers);
  return out;
}

/** `master-<nodeID>` / `worker-<nodeID>`: the node deployment, and the prefix of its pod names. */
export function deploymentName(role: NodeRole, nodeId: string): string {
  return `${role}-${nodeId}`;
}

export function configMapName(role: NodeRole, c: KVMConfig, nodeId: string): string {
  return `${role}-${clusterId(c)}-${nodeId}`;
}

export function legacyLabels(c: KVMConfig): Record<string, string> {
  return { [Labels.legacyCluster]: clusterId(c), [Labels.legacyCustomer]: customerId(c) };
}

/** Labels of every object the operator manages for a cluster. */
export function managedLabels(c: KVMConfig): Record<string, string> {
  return {
    ...legacyLabels(c),
    [Labels.cluster]: clusterId(c),
    [Labels.organization]: customerId(c),
    [Labels.managedBy]: MANAGED_BY,
  };
}

export function apiDomain(c: KVMConfig): string {
  return c.spec.cluster.kubernetes?.api?.domain ?? '';
}

export function apiSecurePort(c: KVMConfig): number {
  return c.spec.cluster.kubernetes?.api?.securePort ?? 443;
}

export function etcdDomain(c: KVMConfig): string {
  return c.spec.cluster.etcd?.domain ?? '';
}

/** The workload API endpoint as node pods and DrainerConfigs record it. */
export function apiEndpoint(c: KVMConfig): string {
  return apiDomain(c);
}

export function flannelVni(c: KVMConfig): number {
  return c.spec.kvm.network?.flannel?.vni ?? 0;
}

/** The shutdown-deferrer's port: 47000 + VNI. */
export function shutdownDeferrerPort(c: KVMConfig): number {
  return 47_000 + flannelVni(c);
}

/** The VM health checker's port: 23000 + VNI. */
export function livenessPort(c: KVMConfig): number {
  return 23_000 + flannelVni(c);
}

export function networkBridgeName(c: KVMConfig): string {
  return `br-${clusterId(c)}`;
}

export function networkTapName(c: KVMConfig): string {
  return `tap-${clusterId(c)}`;
}

export function isPaused(obj: { metadata: { annotations?: Record<string, string> } }): boolean {
  const a = obj.metadata.annotations ?? {};
  return a[Annotations.pausedOperatorkit] === 'true' || a[Annotations.pausedClusterApi] === 'true';
}

const UNIT: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** Parses the VM memory notation ("4G", "2048M", "1.5G") to bytes (decimal units, as upstream). */
export function parseMemory(memory: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)([KMGT]?)$/.exec(memory.trim());
  if (!m) throw new Error(`memory ${JSON.stringify(memory)} is not a number with an optional K, M, G or T suffix`);
  return Number(m[1]) * UNIT[m[2]];
}

/**
 * The node pod's memory request and limit, in megabytes: the VM's memory plus QEMU's overhead.
 * Masters: memory + 1536M. Workers, with G = ceil(memory in GB):
 * G×1024M + 512M + (2 + ⌊G/12⌋)×768M — upstream's integer arithmetic, so the overhead grows in
 * steps of 768M per 12 GB and large workers keep page tables and IO threads inside the limit.
 */
export function podMemoryMegabytes(role: NodeRole, memory: string): number {
  const bytes = parseMemory(memory);
  if (role === 'master') return Math.ceil(bytes / 1e6 + 1536);
  const g = Math.ceil(bytes / 1e9);
  return g * 1024 + 512 + (2 + Math.floor(g / 12)) * 768;
}

/** DISK_DOCKER and DISK_KUBELET of a node's VM. Masters are fixed at 50G/5G, as upstream. */
export function vmDisks(role: NodeRole, vm: KVMNodeSpec): { docker: string; kubelet: string } {
  if (role === 'master') return { docker: '50G', kubelet: '5G' };
  if (vm.dockerVolumeSizeGB) return { docker: `${vm.dockerVolumeSizeGB}G`, kubelet: `${vm.dockerVolumeSizeGB}G` };
  if (vm.disk) return { docker: `${vm.disk}G`, kubelet: `${vm.disk}G` };
  return { docker: '50G', kubelet: '5G' };
}
