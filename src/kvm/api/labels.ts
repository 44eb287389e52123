// Label, annotation and finalizer names the kvm-operator shares with upstream's (giantswarm
// kvm-operator v3, node-operator, k8s-endpoint-updater). They are the wire contract: node pods,
// Endpoints and DrainerConfigs written by either implementation are read by the other.

export const Labels = {
  /** Selects the KVMConfigs (and node pods) a given operator version handles. */
  operatorVersion: 'kvm-operator.giantswarm.io/version',
  /** On node pods: the drainer controller watches pods carrying it. */
  podWatcher: 'kvm-operator.giantswarm.io/pod-watcher',
  releaseVersion: 'release.giantswarm.io/version',
  cluster: 'giantswarm.io/cluster',
  organization: 'giantswarm.io/organization',
  managedBy: 'giantswarm.io/managed-by',
  certificate: 'giantswarm.io/certificate',
  /** Legacy labels, kept because dashboards and upstream tooling select on them. */
  legacyCluster: 'cluster',
  legacyCustomer: 'customer',
  app: 'app',
  node: 'node',
  /** On management-cluster nodes: which role's VMs they host (the deployments' nodeSelector). */
  role: 'role',
  /** On workload-cluster nodes: the kubeadm-style master marker (upstream's badnodedetector reads it too). */
  nodeRoleMaster: 'node-role.kubernetes.io/master',
  /** On workload-cluster nodes: the node's role, as kubectl's ROLES column reads it. */
  kubernetesRole: 'kubernetes.io/role',
} as const;

/** Workload-cluster node labels `node-role.kubernetes.io/<role>` and `node.kubernetes.io/<role>` (value ""). */
export const NODE_ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
export const NODE_KIND_LABEL_PREFIX = 'node.kubernetes.io/';

export const Annotations = {
  releaseVersion: 'giantswarm.io/release-version',
  versionBundleVersion: 'giantswarm.io/version-bundle-version',
  apiEndpoint: 'kvm-operator.giantswarm.io/api-endpoint',
  endpointIp: 'endpoint.kvm.giantswarm.io/ip',
  endpointService: 'endpoint.kvm.giantswarm.io/service',
  drained: 'endpoint.kvm.giantswarm.io/drained',
  componentVersionPrefix: 'kvm-operator.giantswarm.io/component-version-',
  /** On node pods: the operator version that built them (upstream's AnnotationVersionBundle). */
  versionBundle: 'kvm-operator.giantswarm.io/version-bundle',
  etcdDomain: 'giantswarm.io/etcd-domain',
  sslPassthrough: 'nginx.ingress.kubernetes.io/ssl-passthrough',
  /** On a KVMConfig: opt in to the unhealthy-node terminator. */
  terminateUnhealthy: 'alpha.node.giantswarm.io/terminate-unhealthy',
  /** Either one set to "true" makes every controller skip the object. */
  pausedOperatorkit: 'operatorkit.giantswarm.io/paused',
  pausedClusterApi: 'cluster.x-k8s.io/paused',
  /** Kubernetes': marks a static pod's mirror; the node drainer never evicts those. */
  configMirror: 'kubernetes.io/config.mirror',
  /**
   * Upstream's NotReady tick counter on workload nodes. This implementation measures NotReady time
   * from the Ready condition instead: it neither writes nor reads this annotation.
   */
  nodeNotReadyTick: 'giantswarm.io/node-not-ready-tick',
} as const;

export const MANAGED_BY = 'kvm-operator';
export const POD_WATCHER = 'kvm-operator';

/** Finalizer of a controller, as operatorkit names it. */
export function finalizerFor(controllerName: string): string {
  return `operatorkit.giantswarm.io/${controllerName}`;
}

export type NodeRole = 'master' | 'worker';
