// core/v1 kinds besides Pod: ConfigMap, Secret, Namespace, Service, Node, ServiceAccount,
// PersistentVolumeClaim. Specs are closed (every field of k8s.io/api); statuses are open.
import {
  CORE,
  INT_OR_STRING,
  META,
  QUANTITY,
  bool,
  bytes,
  int32,
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

const kindModel = (kind: string, description: string, fields: Record<string, Schema>): Schema =>
  object(description, { ...typeMeta(kind), metadata: objectMetaRef(), ...fields });

export const coreModels: Record<string, Schema> = {
  [`${CORE}.ConfigMap`]: kindModel('ConfigMap', 'ConfigMap holds configuration data for pods to consume.', {
    immutable: bool('If true, data and binaryData cannot be updated (only the object deleted and recreated).'),
    data: stringMap('Configuration data as UTF-8 strings. Keys consist of alphanumerics, "-", "_" or ".".'),
    binaryData: mapOf(bytes(''), 'Binary configuration data, base64-encoded. Keys must not also appear in data.'),
  }),
  [`${CORE}.Secret`]: kindModel(
    'Secret',
    'Secret holds secret data of a certain type. Total size must be under 1 MiB.',
    {
      immutable: bool('If true, data cannot be updated (only the object deleted and recreated).'),
      data: mapOf(bytes(''), 'Secret data, base64-encoded values.'),
      stringData: stringMap(
        'Write-only convenience: plain string values merged into data on write. Never output when read.',
      ),
      type: str(
        'Used to handle the secret data programmatically: Opaque (default), kubernetes.io/tls, kubernetes.io/dockerconfigjson, ...',
      ),
    },
  ),
  [`${CORE}.Namespace`]: kindModel('Namespace', 'Namespace provides a scope for names.', {
    spec: ref(`${CORE}.NamespaceSpec`, 'Behavior of the namespace.'),
    status: ref(`${CORE}.NamespaceStatus`, 'Observed status of the namespace. Read-only.'),
  }),
  [`${CORE}.NamespaceSpec`]: object('Behavior of a namespace.', {
    finalizers: strings('Must be empty before the namespace is removed from storage.'),
  }),
  [`${CORE}.NamespaceStatus`]: object('Observed status of a namespace.', {
    phase: oneOf('Active, or Terminating while deletion is in progress.', ['Active', 'Terminating']),
    conditions: keyedList(openObject('A namespace condition.'), 'Latest observations of the namespace state.', 'type'),
  }),
  [`${CORE}.Service`]: kindModel(
    'Service',
    'Service is a named abstraction of a software service: a port the proxy listens on and the pods it routes to.',
    {
      spec: ref(`${CORE}.ServiceSpec`, 'Behavior of the service.'),
      status: openObject('Observed status of the service: load balancer ingress points and conditions. Read-only.', {
        loadBalancer: openObject('Status of the load balancer, if any.'),
        conditions: keyedList(ref(`${META}.Condition`), 'Current service state.', 'type'),
      }),
    },
  ),
  [`${CORE}.ServiceSpec`]: object('Attributes of a service.', {
    ports: keyedList(ref(`${CORE}.ServicePort`), 'Ports the service exposes.', 'port', 'protocol'),
    selector: stringMap('Routes traffic to pods with these labels. Empty or absent: endpoints are managed externally.'),
    clusterIP: str('IP address of the service, allocated by the server unless set; "None" makes a headless service.'),
    clusterIPs: strings('IP addresses of the service, one per IP family; the first equals clusterIP.'),
    type: oneOf('How the service is exposed. Default ClusterIP.', [
      'ClusterIP',
      'NodePort',
      'LoadBalancer',
      'ExternalName',
    ]),
    externalIPs: strings('Extra IPs on which nodes accept traffic for the service.'),
    sessionAffinity: oneOf('Session affinity. Default None.', ['ClientIP', 'None']),
    loadBalancerIP: str('Deprecated: requested load balancer IP.'),
    loadBalancerSourceRanges: strings('Client IP ranges allowed through the load balancer.'),
    externalName: str('DNS name the service aliases (type ExternalName).'),
    externalTrafficPolicy: oneOf('How external traffic is routed.', ['Cluster', 'Local']),
    healthCheckNodePort: int32('Health check node port, for LoadBalancer services with externalTrafficPolicy Local.'),
    publishNotReadyAddresses: bool('Publish endpoints of pods that are not ready.'),
    sessionAffinityConfig: openObject('Session affinity settings.', {
      clientIP: openObject('ClientIP affinity settings.', { timeoutSeconds: int32('Session stickiness timeout.') }),
    }),
    ipFamilies: strings('IP families of the service: IPv4, IPv6.'),
    ipFamilyPolicy: oneOf('Dual-stack policy.', ['SingleStack', 'PreferDualStack', 'RequireDualStack']),
    allocateLoadBalancerNodePorts: bool('Allocate node ports for LoadBalancer services. Default true.'),
    loadBalancerClass: str('Load balancer implementation to use.'),
    internalTrafficPolicy: oneOf('How cluster-internal traffic is routed.', ['Cluster', 'Local']),
    trafficDistribution: str('Preference for how traffic is distributed to endpoints.'),
  }),
  [`${CORE}.ServicePort`]: object(
    'A port of a service.',
    {
      name: str('Name of the port, required when there is more than one.'),
      protocol: oneOf('Protocol. Default TCP.', ['TCP', 'UDP', 'SCTP']),
      appProtocol: str('Application protocol of the port.'),
      port: int32('Port the service exposes.'),
      targetPort: ref(INT_OR_STRING, 'Port number or name on the pods. Defaults to port.'),
      nodePort: int32('Port on every node, for NodePort and LoadBalancer services.'),
    },
    ['port'],
  ),
  [`${CORE}.Node`]: kindModel('Node', 'Node is a worker in the cluster.', {
    spec: ref(`${CORE}.NodeSpec`, 'Behavior of the node.'),
    status: ref(`${CORE}.NodeStatus`, 'Most recently observed status of the node.'),
  }),
  [`${CORE}.NodeSpec`]: object('Behavior of a node.', {
    podCIDR: str('Pod IP range assigned to the node.'),
    podCIDRs: strings('Pod IP ranges assigned to the node, one per IP family.'),
    providerID: str('ID of the node in the infrastructure provider.'),
    unschedulable: bool('Keep new pods off the node (cordon).'),
    taints: list(ref(`${CORE}.Taint`), 'Taints repelling pods that do not tolerate them.'),
    configSource: openObject('Deprecated dynamic kubelet configuration.'),
    externalID: str('Deprecated.'),
    podPreemptionPolicy: str('How pods on this node may be preempted.'),
  }),
  [`${CORE}.Taint`]: object(
    'A taint: pods that do not tolerate it are repelled from the node.',
    {
      key: str('Taint key.'),
      value: str('Taint value.'),
      effect: oneOf('Effect on pods that do not tolerate the taint.', ['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
      timeAdded: ref(`${META}.Time`, 'When a NoExecute taint was added.'),
    },
    ['key', 'effect'],
  ),
  [`${CORE}.NodeStatus`]: openObject('Observed status of a node, reported by its kubelet.', {
    capacity: mapOf(ref(QUANTITY), 'Total resources of the node.'),
    allocatable: mapOf(ref(QUANTITY), 'Resources available for scheduling.'),
    phase: str('Deprecated.'),
    conditions: keyedList(
      openObject('A node condition: Ready, MemoryPressure, DiskPressure, ...'),
      'Current state of the node.',
      'type',
    ),
    addresses: keyedList(openObject('An address: type and address.'), 'Addresses of the node.', 'type'),
    nodeInfo: openObject('Versions of the kubelet, container runtime, kernel and OS.'),
  }),
  [`${CORE}.ServiceAccount`]: kindModel('ServiceAccount', 'ServiceAccount is an identity for processes in pods.', {
    secrets: keyedList(ref(`${CORE}.ObjectReference`), 'Secrets pods of this account may use.', 'name'),
    imagePullSecrets: list(
      ref(`${CORE}.LocalObjectReference`),
      'Secrets added to the pods of this account for pulling images.',
    ),
    automountServiceAccountToken: bool('Whether pods of this account get a token mounted.'),
  }),
  [`${CORE}.ObjectReference`]: {
    ...object('A reference to an object.', {
      kind: str('Kind of the referent.'),
      namespace: str('Namespace of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      apiVersion: str('API version of the referent.'),
      resourceVersion: str('Specific resourceVersion referred to.'),
      fieldPath: str('A field within the referent, such as spec.containers{name}.'),
    }),
    'x-kubernetes-map-type': 'atomic',
  },
  // Event in its Go field order (k8s.io/api/core/v1/types.go); open, as only the fields event
  // recorders write are described.
  [`${CORE}.Event`]: openObject('Event is a report of an event somewhere in the cluster.', {
    ...typeMeta('Event'),
    metadata: objectMetaRef(),
    involvedObject: ref(`${CORE}.ObjectReference`, 'The object this event is about.'),
    reason: str("Short, machine-understandable reason for the transition into the object's current status."),
    message: str('Human-readable description of the status of this operation.'),
    source: openObject('The component reporting this event.', {
      component: str('Component from which the event is generated.'),
      host: str('Node name on which the event is generated.'),
    }),
    firstTimestamp: ref(`${META}.Time`, 'When the event was first recorded.'),
    lastTimestamp: ref(`${META}.Time`, 'When the most recent occurrence of the event was recorded.'),
    count: int32('Number of times this event has occurred.'),
    type: str('Type of this event (Normal, Warning).'),
    eventTime: ref(`${META}.MicroTime`, 'When the event was first observed.'),
    series: openObject('Data about the series of events this one is part of.', {
      count: int32('Number of occurrences in this series up to the last heartbeat time.'),
      lastObservedTime: ref(`${META}.MicroTime`, 'Time of the last occurrence observed.'),
    }),
    action: str('What action was taken or failed regarding the involved object.'),
    related: ref(`${CORE}.ObjectReference`, 'Secondary object for more complex actions.'),
    reportingComponent: str('Name of the controller that emitted this event.'),
    reportingInstance: str('ID of the controller instance.'),
  }),
  [`${CORE}.PersistentVolumeClaim`]: kindModel(
    'PersistentVolumeClaim',
    "PersistentVolumeClaim is a user's request for and claim to a persistent volume.",
    {
      spec: ref(`${CORE}.PersistentVolumeClaimSpec`, 'Desired characteristics of the volume.'),
      status: openObject('Observed status of the claim. Read-only.', {
        phase: oneOf('Phase of the claim.', ['Pending', 'Bound', 'Lost']),
        capacity: mapOf(ref(QUANTITY), 'Resources of the bound volume.'),
      }),
    },
  ),
  [`${CORE}.PersistentVolumeClaimSpec`]: object('Desired characteristics of a persistent volume.', {
    accessModes: strings('Access modes: ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod.'),
    selector: ref(`${META}.LabelSelector`, 'Volumes to consider for binding.'),
    resources: object('Minimum resources the volume must have.', {
      limits: mapOf(ref(QUANTITY), 'Maximum resources.'),
      requests: mapOf(ref(QUANTITY), 'Minimum resources (storage).'),
    }),
    volumeName: str('Binds to this PersistentVolume.'),
    storageClassName: str('StorageClass the volume is provisioned from.'),
    volumeMode: oneOf('Filesystem (default) or Block.', ['Filesystem', 'Block']),
    dataSource: openObject('An object to populate the volume from.'),
    dataSourceRef: openObject('An object to populate the volume from, possibly in another namespace.'),
    volumeAttributesClassName: str('VolumeAttributesClass of the volume.'),
  }),
};
