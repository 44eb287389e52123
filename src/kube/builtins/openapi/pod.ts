// core/v1 Pod: PodSpec, volumes, scheduling fields and the pod template workloads embed.
// Volume sources other than the common ones stay open; Pod status is the system's and open.
import {
  CORE,
  META,
  QUANTITY,
  bool,
  int32,
  int64,
  keyedList,
  list,
  mapOf,
  object,
  objectMetaRef,
  oneOf,
  openObject,
  ref,
  str,
  stringMap,
  strings,
  typeMeta,
  type Schema,
} from './schema.ts';

/** The legacy and less common volume sources: documented by name only. */
const OTHER_SOURCES: Record<string, string> = {
  gcePersistentDisk: 'A GCE persistent disk (deprecated).',
  awsElasticBlockStore: 'An AWS EBS volume (deprecated).',
  gitRepo: 'A git repository cloned into an empty directory (deprecated).',
  nfs: 'An NFS export.',
  iscsi: 'An iSCSI disk.',
  glusterfs: 'A Glusterfs mount (removed).',
  rbd: 'A Rados block device (deprecated).',
  flexVolume: 'A FlexVolume driver volume (deprecated).',
  cinder: 'An OpenStack Cinder volume (deprecated).',
  cephfs: 'A CephFS mount (deprecated).',
  flocker: 'A Flocker volume (deprecated).',
  downwardAPI: 'Pod and container fields written to files.',
  fc: 'A Fibre Channel disk.',
  azureFile: 'An Azure File share (deprecated).',
  vsphereVolume: 'A vSphere volume (deprecated).',
  quobyte: 'A Quobyte mount (removed).',
  azureDisk: 'An Azure data disk (deprecated).',
  photonPersistentDisk: 'A PhotonController disk (removed).',
  projected:
    'Several sources (secrets, configmaps, downward API, service account tokens) projected into one directory.',
  portworxVolume: 'A Portworx volume (deprecated).',
  scaleIO: 'A ScaleIO volume (removed).',
  storageos: 'A StorageOS volume (removed).',
  csi: 'An ephemeral volume of a CSI driver.',
  ephemeral: 'A volume provisioned for the pod from a PersistentVolumeClaim template and deleted with it.',
  image: 'An OCI image or artifact mounted read-only.',
};

const items = (): Schema => list(ref(`${CORE}.KeyToPath`), 'Which keys to project, and where; every key by default.');
const defaultMode = (): Schema => int32('Mode bits of the created files, 0000 to 0777. Default 0644.');

const volumeSources: Record<string, Schema> = {
  hostPath: object(
    'A file or directory of the host mounted into the pod.',
    {
      path: str('Path on the host.'),
      type: str(
        'Expected type of the path: "", DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice.',
      ),
    },
    ['path'],
  ),
  emptyDir: object('A temporary directory that lives as long as the pod.', {
    medium: oneOf('Storage medium: "" (node default) or Memory.', ['', 'Memory']),
    sizeLimit: ref(QUANTITY, 'Maximum size of the directory.'),
    mode: str('Mode of the directory.'),
  }),
  secret: object('A Secret whose keys become files.', {
    secretName: str('Name of the Secret in the namespace.'),
    items: items(),
    defaultMode: defaultMode(),
    optional: bool('Whether the Secret or its keys may be missing.'),
    defaultUser: int64('Owner of the created files.'),
  }),
  configMap: object('A ConfigMap whose keys become files.', {
    name: str('Name of the ConfigMap in the namespace.'),
    items: items(),
    defaultMode: defaultMode(),
    optional: bool('Whether the ConfigMap or its keys may be missing.'),
    defaultUser: int64('Owner of the created files.'),
  }),
  persistentVolumeClaim: object(
    'A PersistentVolumeClaim in the namespace.',
    { claimName: str('Name of the claim.'), readOnly: bool('Mount read-only.') },
    ['claimName'],
  ),
  ...Object.fromEntries(Object.entries(OTHER_SOURCES).map(([k, d]) => [k, openObject(d)])),
};

export const podModels: Record<string, Schema> = {
  [`${CORE}.Pod`]: object(
    'Pod is a collection of containers that run together on a host. Created by clients, scheduled onto nodes.',
    {
      ...typeMeta('Pod'),
      metadata: objectMetaRef(),
      spec: ref(`${CORE}.PodSpec`, 'Desired behavior of the pod.'),
      status: ref(`${CORE}.PodStatus`, 'Most recently observed status of the pod. Read-only.'),
    },
  ),
  [`${CORE}.PodTemplateSpec`]: object('The pod a workload controller creates.', {
    metadata: objectMetaRef(),
    spec: ref(`${CORE}.PodSpec`, 'Desired behavior of the pods.'),
  }),
  [`${CORE}.PodSpec`]: object(
    'Specification of a pod: its containers, volumes and scheduling constraints.',
    {
      volumes: {
        ...keyedList(ref(`${CORE}.Volume`), 'Volumes the containers can mount.', 'name'),
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
      },
      initContainers: keyedList(
        ref(`${CORE}.Container`),
        'Containers run in order, each to completion, before the app containers start.',
        'name',
      ),
      containers: keyedList(
        ref(`${CORE}.Container`),
        'The containers of the pod. At least one. Cannot be added or removed after creation.',
        'name',
      ),
      ephemeralContainers: keyedList(
        ref(`${CORE}.EphemeralContainer`),
        'Debugging containers added to a running pod.',
        'name',
      ),
      restartPolicy: oneOf('Restart policy of the containers. Default Always.', ['Always', 'OnFailure', 'Never']),
      terminationGracePeriodSeconds: int64('Seconds given to the pod to stop gracefully. Default 30.'),
      activeDeadlineSeconds: int64('Seconds the pod may be active before the system terminates it.'),
      dnsPolicy: oneOf('DNS policy. Default ClusterFirst.', [
        'ClusterFirstWithHostNet',
        'ClusterFirst',
        'Default',
        'None',
      ]),
      nodeSelector: stringMap('Labels a node must have for the pod to be scheduled on it.'),
      serviceAccountName: str('ServiceAccount the pod runs as.'),
      serviceAccount: str('Deprecated alias of serviceAccountName.'),
      automountServiceAccountToken: bool('Whether a service account token is mounted automatically.'),
      nodeName: str('The node the pod is bound to; set by the scheduler.'),
      hostNetwork: bool("Use the host's network namespace."),
      hostPID: bool("Use the host's PID namespace."),
      hostIPC: bool("Use the host's IPC namespace."),
      shareProcessNamespace: bool('Share one PID namespace between the containers.'),
      securityContext: ref(`${CORE}.PodSecurityContext`, 'Pod-level security attributes.'),
      imagePullSecrets: keyedList(ref(`${CORE}.LocalObjectReference`), 'Secrets used to pull images.', 'name'),
      hostname: str("Pod's hostname; the pod name by default."),
      subdomain: str('Subdomain, making the pod reachable as <hostname>.<subdomain>.<namespace>.svc.'),
      affinity: ref(`${CORE}.Affinity`, 'Node and pod affinity and anti-affinity.'),
      schedulerName: str('Scheduler that places the pod. Default default-scheduler.'),
      tolerations: list(ref(`${CORE}.Toleration`), 'Taints the pod tolerates.'),
      hostAliases: keyedList(ref(`${CORE}.HostAlias`), "Entries added to the pod's /etc/hosts.", 'ip'),
      priorityClassName: str('PriorityClass that gives the pod its priority.'),
      priority: int32('Priority value, resolved from priorityClassName by admission.'),
      dnsConfig: ref(`${CORE}.PodDNSConfig`, 'DNS settings merged with those of dnsPolicy.'),
      readinessGates: list(
        ref(`${CORE}.PodReadinessGate`),
        'Extra conditions that must be true for the pod to be ready.',
      ),
      runtimeClassName: str('RuntimeClass used to run the pod.'),
      enableServiceLinks: bool('Inject service environment variables (docker links). Default true.'),
      preemptionPolicy: oneOf('Whether the pod may preempt lower-priority pods.', ['Never', 'PreemptLowerPriority']),
      overhead: mapOf(ref(QUANTITY), 'Resource overhead of the pod sandbox, set by RuntimeClass admission.'),
      topologySpreadConstraints: keyedList(
        ref(`${CORE}.TopologySpreadConstraint`),
        'How pods spread across topology domains.',
        'topologyKey',
        'whenUnsatisfiable',
      ),
      setHostnameAsFQDN: bool("Make the pod's hostname its fully qualified domain name."),
      os: ref(`${CORE}.PodOS`, 'Operating system of the containers.'),
      hostUsers: bool("Use the host's user namespace. Default true."),
      schedulingGates: keyedList(
        ref(`${CORE}.PodSchedulingGate`),
        'Gates that keep the pod from being scheduled while present.',
        'name',
      ),
      resourceClaims: keyedList(ref(`${CORE}.PodResourceClaim`), 'Dynamic resource claims the pod uses.', 'name'),
      resources: ref(`${CORE}.ResourceRequirements`, 'Pod-level resource requests and limits.'),
      hostnameOverride: str('Hostname to use instead of the generated one.'),
      schedulingGroup: openObject('Group the pod is scheduled with.'),
      evictionResponders: list(
        openObject('A responder to evictions.'),
        'Components consulted before the pod is evicted.',
      ),
    },
    ['containers'],
  ),
  [`${CORE}.PodStatus`]: openObject('Observed state of a pod, written by the kubelet and controllers.', {
    phase: oneOf('Lifecycle phase.', ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']),
    conditions: keyedList(openObject('A pod condition.'), 'Current service state of the pod.', 'type'),
    message: str('Why the pod is in this state.'),
    reason: str('CamelCase reason for the state.'),
    hostIP: str('IP of the node the pod runs on.'),
    podIP: str('IP of the pod.'),
    startTime: ref(`${META}.Time`, 'When the kubelet acknowledged the pod.'),
    containerStatuses: list(openObject('Status of one container.'), 'Status of each container.'),
    qosClass: oneOf('Quality of service class.', ['Guaranteed', 'Burstable', 'BestEffort']),
  }),
  [`${CORE}.Volume`]: object(
    'A named volume of a pod; exactly one source is set.',
    { name: str('Name of the volume, a DNS label unique within the pod.'), ...volumeSources },
    ['name'],
  ),
  [`${CORE}.KeyToPath`]: object(
    'Maps a key to a file path within a volume.',
    {
      key: str('The key to project.'),
      path: str('Relative path of the file.'),
      mode: int32('Mode bits of this file.'),
      user: int64('Owner of this file.'),
    },
    ['key', 'path'],
  ),
  [`${CORE}.LocalObjectReference`]: {
    // name defaults to "" as upstream (+default=""): it is the key of imagePullSecrets.
    ...object('A reference to an object in the same namespace.', { name: str('Name of the object.', { default: '' }) }),
    'x-kubernetes-map-type': 'atomic',
  },
  [`${CORE}.Toleration`]: object('Lets the pod be scheduled onto nodes with a matching taint.', {
    key: str('Taint key the toleration applies to; empty matches every key (with operator Exists).'),
    operator: oneOf('How key and value are compared. Default Equal.', ['Exists', 'Equal']),
    value: str('Taint value to match.'),
    effect: oneOf('Taint effect to match; empty matches all.', ['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
    tolerationSeconds: int64('For NoExecute: how long the pod stays bound after the taint appears.'),
  }),
  [`${CORE}.HostAlias`]: object(
    'An /etc/hosts entry.',
    { ip: str('IP address.'), hostnames: strings('Hostnames for the IP address.') },
    ['ip'],
  ),
  [`${CORE}.PodDNSConfig`]: object('DNS parameters of a pod.', {
    nameservers: strings('DNS name server IPs.'),
    searches: strings('DNS search domains.'),
    options: list(
      object('A resolver option.', { name: str('Option name.'), value: str('Option value.') }),
      'Resolver options.',
    ),
  }),
  [`${CORE}.PodReadinessGate`]: object(
    'A condition the pod needs for readiness.',
    { conditionType: str('Type of a condition of the pod.') },
    ['conditionType'],
  ),
  [`${CORE}.PodSchedulingGate`]: object('A gate blocking scheduling.', { name: str('Name of the gate.') }, ['name']),
  [`${CORE}.PodOS`]: object('Operating system of a pod.', { name: str('linux or windows.') }, ['name']),
  [`${CORE}.PodResourceClaim`]: object(
    'A resource claim of the pod.',
    {
      name: str('Name of the claim within the pod.'),
      resourceClaimName: str('An existing ResourceClaim.'),
      resourceClaimTemplateName: str('A ResourceClaimTemplate to create a claim from.'),
    },
    ['name'],
  ),
  [`${CORE}.TopologySpreadConstraint`]: {
    ...openObject('How matching pods spread across a topology.', {
      maxSkew: int32('Largest allowed difference in the number of matching pods between domains.'),
      topologyKey: str('Node label key whose values are the domains.'),
      whenUnsatisfiable: oneOf('What to do when the constraint cannot be met.', ['DoNotSchedule', 'ScheduleAnyway']),
      labelSelector: ref(`${META}.LabelSelector`, 'The pods counted.'),
    }),
    required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  },
  [`${CORE}.Affinity`]: openObject('Scheduling constraints relative to nodes and other pods.', {
    nodeAffinity: openObject('Node affinity scheduling rules.'),
    podAffinity: openObject('Rules to co-locate the pod with other pods.'),
    podAntiAffinity: openObject('Rules to keep the pod away from other pods.'),
  }),
  [`${CORE}.PodSecurityContext`]: openObject('Security attributes applying to every container of a pod.', {
    runAsUser: int64('UID to run the entrypoints as.'),
    runAsGroup: int64('GID to run the entrypoints as.'),
    runAsNonRoot: bool('Refuse to start containers whose user is root.'),
    fsGroup: int64('Group owning the volumes, added to every container.'),
    supplementalGroups: list(
      { type: 'integer', format: 'int64' },
      'Extra groups of the first process of each container.',
    ),
  }),
};
