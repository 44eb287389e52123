// The contract between the peer-pod operators and the clouds that host pod VMs.
//
// Differences from upstream's Go `Provider` (cloud-api-adaptor src/cloud-providers/types.go), and why:
// - `deleteInstance` is idempotent: an instance that is already gone is success. Upstream only does
//   this for alibabacloud/byom, so peerpod-ctrl retries forever and the finalizer never goes away.
// - `listInstances(tags)` is part of the interface (upstream's optional InstanceLister, PR #2981)
//   because the orphan sweep needs it from every provider. It only returns pod VMs this layer could
//   have created (name prefix `podvm-`, or the provider's own bookkeeping), so a sweep can never
//   see, and delete, a VM it does not own.
// - `createInstance` takes the tags to put on the VM (e.g. the cluster UID) instead of a cloud-init
//   generator; `userData` is passed through as-is where the cloud supports it.
// - A create that made a VM but could not finish (no IP yet, ...) throws PartialCreateError carrying
//   the instance, where Go returns both the instance and an error.
// - Create adopts an existing VM with the same name, so a retried create never makes two VMs.
// - `capacity` (optional) says how many more VMs fit, from the host or the cloud's quota, so the
//   advertised node capacity never promises what the provider cannot hold (CAA#1847).
import type { CapacityRequest, ProviderCapacity } from './capacity.ts';

export interface CreateInstanceRequest {
  podName: string;
  /** Recorded where the provider has room for it (qemu, libvirt, simulated); not part of the VM name. */
  podNamespace: string;
  sandboxId: string;
  /** 0 means the provider's configured default. */
  vcpus: number;
  /** MiB; 0 means the provider's configured default. */
  memoryMiB: number;
  /** Cloud machine type; overrides the configured default (must be in the allowed list when one is configured). */
  instanceType?: string;
  /** Cloud image (AMI id, Azure image id, GCP image); overrides the configured one. */
  image?: string;
  /** Cloud-init user data for clouds that take it (aws, azure, gcp); ignored by qemu/libvirt/simulated. */
  userData?: string;
  /** Tags put on the VM; they come back from listInstances and can be filtered on. */
  tags: Record<string, string>;
}

export interface Instance {
  /** What deleteInstance takes: the upstream instance ID format of the provider (see README table in registry.ts). */
  id: string;
  name: string;
  ips: string[];
  tags: Record<string, string>;
  createdAt: Date;
  /** Provider's own wording (e.g. "running", "pending", "shut off"). */
  state?: string;
}

export interface CloudProvider {
  readonly name: string;
  createInstance(req: CreateInstanceRequest): Promise<Instance>;
  /**
   * Idempotent: success when the instance does not exist (any more). Resolves `false` when the
   * provider can tell there was nothing to delete, so callers never report deleting a VM that never
   * existed; `true` or nothing otherwise.
   */
  deleteInstance(id: string): Promise<boolean | void>;
  /** Pod VMs carrying every given tag (exact match); `{}` lists all pod VMs of this provider. */
  listInstances(tags: Record<string, string>): Promise<Instance[]>;
  /** Throws ProviderConfigError naming every missing or invalid setting. Never creates anything. */
  verifyConfig(): Promise<void>;
  /**
   * How many more VMs of `size` (0s: the configured default) fit now, and why; absent or
   * `available: undefined` when the provider cannot tell. VMs already running are not included.
   */
  capacity?(size: CapacityRequest): Promise<ProviderCapacity>;
  close?(): Promise<void>;
}

/** Tag key upstream uses for orphan-VM collection (PR #2981): the kube-system namespace UID. */
export const CLUSTER_UID_TAG = 'caa-cluster-uid';
