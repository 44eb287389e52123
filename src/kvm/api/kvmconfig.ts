// KVMConfig (provider.giantswarm.io/v1alpha1, namespaced, lives in `default` named after the
// cluster ID): one workload cluster whose masters and workers are KVM VMs in management-cluster
// pods. Field names follow upstream's apiextensions types, so existing objects apply unchanged.
// `spec.kvm.masters[i]` describes the VM of `spec.cluster.masters[i]` (parallel arrays, as
// upstream); the controller reports a length mismatch as a condition rather than guessing.
import { customResource, customResourceDefinition, s } from '../../runtime/index.ts';
import type { KubeObject, Static } from '../../runtime/index.ts';

export const PROVIDER_GROUP = 'provider.giantswarm.io';
export const PROVIDER_VERSION = 'v1alpha1';
export const KVMConfigs = customResource(PROVIDER_GROUP, PROVIDER_VERSION, 'KVMConfig', 'kvmconfigs', true);
/** Where upstream keeps every KVMConfig; the drainer looks clusters up here. */
export const KVMCONFIG_NAMESPACE = 'default';

export const StorageTypes = ['hostPath', 'persistentVolume'] as const;
export type StorageType = (typeof StorageTypes)[number];

const nodeRef = s.object({ id: s.pattern('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') }, { required: ['id'] });
const dockerImage = s.object({ docker: s.object({ image: s.string() }) });

const kvmNode = s.object(
  {
    cpus: s.integer({ minimum: 1, description: 'Virtual CPUs; also the pod CPU request and limit.' }),
    memory: s.pattern('^[0-9]+(\\.[0-9]+)?[KMGT]?$', { description: 'VM memory, e.g. "4G".' }),
    disk: s.number({ minimum: 0, description: 'Root disk size in GB.' }),
    dockerVolumeSizeGB: s.integer({ minimum: 0 }),
    hostVolumes: s.array(
      s.object({ mountTag: s.string(), hostPath: s.string() }, { required: ['mountTag', 'hostPath'] }),
    ),
  },
  { required: ['cpus', 'memory'] },
);

const clusterSpec = s.object(
  {
    id: s.pattern('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', { description: 'Cluster ID: the namespace and object names.' }),
    customer: s.object({ id: s.string() }),
    calico: s.object({ cidr: s.integer(), mtu: s.integer(), subnet: s.string() }),
    docker: s.object({ daemon: s.object({ cidr: s.string() }) }),
    etcd: s.object({ domain: s.string(), port: s.integer(), prefix: s.string(), altNames: s.string() }),
    kubernetes: s.object({
      api: s.object({
        clusterIPRange: s.string(),
        domain: s.string(),
        securePort: s.integer({ minimum: 1, maximum: 65535 }),
      }),
      cloudProvider: s.string(),
      dns: s.object({ ip: s.string() }),
      domain: s.string(),
      kubelet: s.object({ altNames: s.string(), domain: s.string(), labels: s.string(), port: s.integer() }),
      ssh: s.object({ userList: s.array(s.object({ name: s.string(), publicKey: s.string() })) }),
    }),
    masters: s.array(nodeRef),
    workers: s.array(nodeRef),
    scaling: s.object({ min: s.integer(), max: s.integer() }),
  },
  { required: ['id'] },
);

const kvmSpec = s.object({
  endpointUpdater: dockerImage,
  k8sKVM: s.object({ docker: s.object({ image: s.string() }), storageType: s.enum(StorageTypes) }),
  nodeController: dockerImage,
  masters: s.array(kvmNode),
  workers: s.array(kvmNode),
  network: s.object({ flannel: s.object({ vni: s.integer({ minimum: 0, maximum: 16_777_215 }) }) }),
  portMappings: s.array(
    s.object(
      {
        name: s.string(),
        nodePort: s.integer({ minimum: 1, maximum: 65535 }),
        targetPort: s.integer({ minimum: 1, maximum: 65535 }),
      },
      { required: ['name', 'nodePort', 'targetPort'] },
    ),
  ),
});

const specSchema = s.object(
  { cluster: clusterSpec, kvm: kvmSpec, versionBundle: s.object({ version: s.string() }) },
  { required: ['cluster', 'kvm'] },
);

const clusterCondition = s.object(
  {
    type: s.enum(['Creating', 'Created', 'Updating', 'Updated', 'Deleting', 'Deleted'] as const),
    status: s.enum(['True', 'False', 'Unknown'] as const),
    lastTransitionTime: s.dateTime(),
  },
  { required: ['type', 'status'] },
);

const statusSchema = s.object({
  cluster: s.object({
    conditions: s.array(clusterCondition),
    nodes: s.array(
      s.object(
        { name: s.string(), version: s.string(), labels: s.map(s.string()), lastTransitionTime: s.dateTime() },
        { required: ['name'] },
      ),
    ),
    versions: s.array(s.object({ semver: s.string(), lastTransitionTime: s.dateTime() }, { required: ['semver'] })),
  }),
  kvm: s.object({
    nodeIndexes: s.map(s.integer({ minimum: 1 }), { description: 'Stable index per node ID (lowest free, from 1).' }),
  }),
  /**
   * Ours, not upstream's: the operator's view of its own progress (Ready, WorkloadClusterReachable,
   * SpecValid, ...), in the standard shape, so `kubectl wait` works.
   */
  conditions: s.array(
    s.object(
      {
        type: s.string(),
        status: s.enum(['True', 'False', 'Unknown'] as const),
        reason: s.string(),
        message: s.string(),
        lastTransitionTime: s.dateTime(),
        observedGeneration: s.integer({ minimum: 0 }),
      },
      { required: ['type', 'status'] },
    ),
    { listType: 'map', mapKeys: ['type'] },
  ),
});

const kvmConfigSchema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: s.object({}),
  spec: specSchema,
  status: statusSchema,
});

export type KVMConfigSpec = Static<typeof specSchema>;
export type KVMConfigStatus = Static<typeof statusSchema>;
export type KVMNodeSpec = Static<typeof kvmNode>;
export type ClusterCondition = Static<typeof clusterCondition>;
export interface KVMConfig extends KubeObject {
  spec: KVMConfigSpec;
  status?: KVMConfigStatus;
}

export const kvmConfigOpenApiSchema = kvmConfigSchema;

export function kvmConfigCrd(): KubeObject {
  return customResourceDefinition({
    group: PROVIDER_GROUP,
    version: PROVIDER_VERSION,
    scope: 'Namespaced',
    names: { kind: 'KVMConfig', plural: 'kvmconfigs', singular: 'kvmconfig', categories: ['giantswarm'] },
    printerColumns: [
      { name: 'Customer', type: 'string', jsonPath: '.spec.cluster.customer.id' },
      { name: 'API', type: 'string', jsonPath: '.spec.cluster.kubernetes.api.domain', priority: 1 },
      { name: 'Status', type: 'string', jsonPath: '.status.cluster.conditions[-1:].type' },
      { name: 'Version', type: 'string', jsonPath: '.status.cluster.versions[-1:].semver' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    openAPIV3Schema: kvmConfigSchema.json,
  });
}
