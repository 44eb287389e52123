// Every setting of the kvm-operator, with its default, in one place. `peerpods run kvm-operator`
// maps its flags onto this object; tests and embedders pass it directly.

export interface KvmOperatorOptions {
  /**
   * The operator version: KVMConfigs and node pods labelled kvm-operator.giantswarm.io/version with
   * it are ours; nodes report it on their label of the same name. Default "3.15.0".
   */
  version?: string;
  /** Namespace where KVMConfigs live (upstream: always "default"). */
  kvmConfigNamespace?: string;
  /** ClusterRole bound to each cluster's service account (upstream flag rbac.clusterRole.general). */
  clusterRoleGeneral?: string;
  /** ClusterRole bound for pod security policies (upstream flag rbac.clusterRole.psp). */
  clusterRolePsp?: string;
  /** DNS_SERVERS and NTP_SERVERS of the VMs. */
  dnsServers?: string[];
  ntpServers?: string[];
  /** Container images of the node pods. */
  images?: Partial<NodePodImages>;
  /** FLATCAR_CHANNEL of the VMs. Default "stable". */
  flatcarChannel?: string;
  /** Storage class of the etcd PVCs when storageType=persistentVolume. Default "g8s-storage". */
  storageClass?: string;
  /** Resync of the cluster, drainer and terminator controllers. Default 5 min. */
  resyncMs?: number;
  /** Resync of the deleter. Default 2 min. */
  deleterResyncMs?: number;
  /** How soon a chain that had to wait (cancelled, finalizer kept) runs again. Default 5 s. */
  recheckMs?: number;
  /** Terminate unhealthy nodes of every cluster, not only those annotated. Default false. */
  terminateUnhealthyNodes?: boolean;
  /** How long a workload node may be NotReady before its pod is replaced. Default 30 min. */
  unhealthyNodeAfterMs?: number;
  /** How long a drain may run before the node drainer reports Timeout. Default 10 min. */
  drainTimeoutMs?: number;
  /** Run the node drainer (the DrainerConfig executor, upstream's node-operator). Default true. */
  nodeDrainer?: boolean;
  /** Namespace searched for workload-cluster credential Secrets. Default: kvmConfigNamespace. */
  credentialsNamespace?: string;
  /** Time source of the terminator and the drain timeout (tests move it). Default Date.now. */
  now?: () => number;
}

export interface NodePodImages {
  k8sKvm: string;
  endpointUpdater: string;
  health: string;
  shutdownDeferrer: string;
}

export type ResolvedKvmOptions = Required<Omit<KvmOperatorOptions, 'images'>> & { images: NodePodImages };

export const KVM_DEFAULTS: ResolvedKvmOptions = Object.freeze({
  version: '3.15.0',
  kvmConfigNamespace: 'default',
  clusterRoleGeneral: 'kvm-operator-general',
  clusterRolePsp: 'kvm-operator-psp',
  dnsServers: ['1.1.1.1', '8.8.8.8'],
  ntpServers: ['0.flatcar.pool.ntp.org', '1.flatcar.pool.ntp.org'],
  images: Object.freeze({
    k8sKvm: 'quay.io/giantswarm/k8s-kvm:0.4.1',
    endpointUpdater: 'quay.io/giantswarm/k8s-endpoint-updater:0.1.0',
    health: 'quay.io/giantswarm/k8s-kvm-health:0.1.0',
    shutdownDeferrer: 'quay.io/giantswarm/shutdown-deferrer:0.1.0',
  }),
  flatcarChannel: 'stable',
  storageClass: 'g8s-storage',
  resyncMs: 5 * 60_000,
  deleterResyncMs: 2 * 60_000,
  recheckMs: 5_000,
  terminateUnhealthyNodes: false,
  unhealthyNodeAfterMs: 30 * 60_000,
  drainTimeoutMs: 10 * 60_000,
  nodeDrainer: true,
  credentialsNamespace: 'default',
  now: Date.now,
}) as ResolvedKvmOptions;

export function resolveKvmOptions(opts: KvmOperatorOptions = {}): ResolvedKvmOptions {
  const defined = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
  const ns = opts.kvmConfigNamespace ?? KVM_DEFAULTS.kvmConfigNamespace;
  return {
    ...KVM_DEFAULTS,
    credentialsNamespace: ns,
    ...defined,
    images: { ...KVM_DEFAULTS.images, ...opts.images },
  } as ResolvedKvmOptions;
}
