// PeerPodConfig (confidentialcontainers.org/v1alpha1): how many pod VMs the cluster may run and on
// which nodes, plus the names of the adaptor's ConfigMap and Secret. The TypeScript type and the CRD
// schema come from the same builders, so they cannot drift.
//
// Wire compatibility with upstream (peerpodconfig-ctrl, removed in 2024): `limit` is a string there.
// We accept a string of digits or an integer (x-kubernetes-int-or-string with a pattern), so
// upstream objects apply unchanged — except `""`, which upstream read as "1" and we reject: exactly
// one of `limit` (cluster-wide, spread over the nodes) or `limitPerNode` must be set. That rule is
// two x-kubernetes-validations (CEL) rules with messages naming the fields: a `oneOf` of
// `required`s says only `"spec" must validate one and only one schema (oneOf)`.
import { customResource } from '../../runtime/index.ts';
import type { Condition, KubeObject } from '../../runtime/index.ts';
import { customResourceDefinition, s } from '../../runtime/index.ts';
import type { Static } from '../../runtime/index.ts';
import { GROUP, VERSION } from './peerpod.ts';
import { poolSpecSchema, poolStatusSchema } from './pool.ts';
import { ext } from './schema-ext.ts';

export const PeerPodConfigs = customResource(GROUP, VERSION, 'PeerPodConfig', 'peerpodconfigs', true);
export const PEERPODCONFIG_CRD_NAME = `peerpodconfigs.${GROUP}`;

/** The finalizer that lets the controller take the extended resource off the nodes on delete. */
export const PEERPODCONFIG_FINALIZER = 'peerpodconfig.confidentialcontainers.org/finalizer';

export const DEFAULT_CLOUD_SECRET_NAME = 'peer-pods-secret';
export const DEFAULT_CONFIGMAP_NAME = 'peer-pods-cm';
export const DEFAULT_NODE_SELECTOR: Readonly<Record<string, string>> = Object.freeze({
  'node.kubernetes.io/worker': '',
});
/** Largest accepted limit: far above any cloud quota, small enough to never overflow anything. */
export const MAX_LIMIT = 999_999;
/** Largest accepted maxVcpus: past any VM, small enough for every integer type on the way. */
const MAX_VCPUS_LIMIT = 1_000_000;

export const PeerPodConfigConditions = {
  /** The extended resource is on every selected node with its share. */
  CapacityAdvertised: 'CapacityAdvertised',
  /** The adaptor DaemonSet matches the spec. */
  AdaptorDeployed: 'AdaptorDeployed',
  /** The webhook Deployment, Service, certificate Secret and MutatingWebhookConfiguration match. */
  WebhookDeployed: 'WebhookDeployed',
  /**
   * True when the provider cannot hold the configured limit, so less is advertised (reason
   * HostMemory, HostCPU or Quota; the message has the numbers); False when it can (WithinCapacity)
   * or cannot tell (CapacityUnknown). Not part of Ready: a capped config works as intended.
   */
  CapacityLimited: 'CapacityLimited',
  /**
   * True when an older PeerPodConfig already claims this one's RuntimeClass or node resource (reason
   * RuntimeClassConflict or ExtendedResourceConflict): nothing of it is applied. Absent otherwise.
   */
  Conflicted: 'Conflicted',
  /** All of the above. */
  Ready: 'Ready',
} as const;

const conditionSchema = s.object(
  {
    type: s.string(),
    status: s.enum(['True', 'False', 'Unknown'] as const),
    observedGeneration: s.integer({ minimum: 0 }),
    lastTransitionTime: s.dateTime(),
    reason: s.string(),
    message: s.string(),
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

const specFields = s.object({
  instanceType: s.string({ description: 'Accepted for compatibility with upstream; unused (as upstream).' }),
  limit: ext<number | string>({
    'x-kubernetes-int-or-string': true,
    // Applies to the string form; minimum/maximum to the integer form.
    pattern: `^[0-9]{1,${String(MAX_LIMIT).length}}$`,
    minimum: 0,
    maximum: MAX_LIMIT,
    description:
      'Pod VMs for the whole cluster, spread as evenly as possible over the selected nodes (sorted node names get ' +
      'the remainder first). An integer or a string of digits (upstream wrote a string). Exclusive with limitPerNode.',
  }),
  limitPerNode: ext<number>({
    type: 'integer',
    minimum: 0,
    maximum: MAX_LIMIT,
    description: 'Pod VMs per selected node (the model the adaptor later adopted). Exclusive with limit.',
  }),
  cloudSecretName: ext<string>({
    type: 'string',
    default: DEFAULT_CLOUD_SECRET_NAME,
    description: 'Secret with the cloud credentials, passed to the adaptor with envFrom.',
  }),
  configMapName: ext<string>({
    type: 'string',
    default: DEFAULT_CONFIGMAP_NAME,
    description: 'ConfigMap with the adaptor settings, passed to the adaptor with envFrom.',
  }),
  maxVcpus: ext<number>({
    type: 'integer',
    minimum: 1,
    maximum: MAX_VCPUS_LIMIT,
    description:
      'The largest pod VM, in vCPUs, a pod may ask for: the webhook denies larger pods (its --max-vcpus). Default 2048.',
  }),
  maxMemory: ext<string>({
    type: 'string',
    // Binary units of at least 1Mi, so every value is a whole number of MiB the webhook can hold.
    pattern: '^[1-9][0-9]{0,5}(Mi|Gi|Ti|Pi)$',
    description:
      'The largest pod VM memory a pod may ask for, as a whole number of Mi, Gi, Ti or Pi (e.g. 512Gi): the ' +
      'webhook denies larger pods (its --max-memory). Default 32Ti.',
  }),
  // Several providers in one cluster (CAA#2219, #2382): one PeerPodConfig per provider, each bound to
  // its own RuntimeClass and node resource. Per-provider settings (e.g. the warm pool) belong here.
  runtimeClassName: ext<string>({
    type: 'string',
    pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$',
    description:
      'The RuntimeClass whose pods this provider runs (the webhook maps it to extendedResource; the adaptor ' +
      'takes its pods). Default kata-remote. Two PeerPodConfigs claiming one RuntimeClass: the younger is refused.',
  }),
  extendedResource: ext<string>({
    type: 'string',
    pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$',
    description:
      'The node resource one pod VM of this provider takes. Default kata.peerpods.io/vm; another provider names ' +
      'its own, e.g. simulated.kata.peerpods.io/vm. Two PeerPodConfigs claiming one resource: the younger is refused.',
  }),
  cloudProvider: ext<string>({
    type: 'string',
    pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    description:
      "The provider this config's adaptors create VMs with (their --provider; `<provider>.KEY` settings apply). " +
      'Default CLOUD_PROVIDER of its ConfigMap.',
  }),
  pool: poolSpecSchema,
  nodeSelector: ext<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string' },
    default: { ...DEFAULT_NODE_SELECTOR },
    description: 'Labels of the nodes that run the adaptor and get the kata.peerpods.io/vm capacity.',
  }),
});

export const peerPodConfigSpecSchema = ext<Static<typeof specFields>>({
  ...specFields.json,
  description: 'Set exactly one of limit and limitPerNode.',
  'x-kubernetes-validations': [
    {
      rule: '!(has(self.limit) && has(self.limitPerNode))',
      message: 'limit and limitPerNode are exclusive: set one of them',
      reason: 'FieldValueForbidden',
      fieldPath: '.limitPerNode',
    },
    {
      rule: 'has(self.limit) || has(self.limitPerNode)',
      message: 'set limit (pod VMs for the whole cluster) or limitPerNode (pod VMs per node)',
      reason: 'FieldValueRequired',
      fieldPath: '.limit',
    },
  ],
});

const allocationSchema = s.object(
  {
    node: s.string(),
    vms: s.integer({ minimum: 0, description: 'kata.peerpods.io/vm advertised on this node.' }),
  },
  { required: ['node', 'vms'] },
);

export const peerPodConfigStatusSchema = s.object({
  setupCompleted: s.boolean({ description: 'Capacity advertised, adaptor and webhook deployed.' }),
  observedGeneration: s.integer({ minimum: 0 }),
  nodes: s.integer({ minimum: 0, description: 'Selected nodes.' }),
  totalVMs: s.integer({ minimum: 0, description: 'Sum of the allocation.' }),
  configuredLimit: s.integer({
    minimum: 0,
    description: 'Pod VMs the spec allows on the selected nodes (limit, or limitPerNode times the nodes).',
  }),
  effectiveLimit: s.integer({
    minimum: 0,
    description:
      'Pod VMs advertised: the configured limit, or less when the provider cannot hold it (condition CapacityLimited).',
  }),
  allocation: s.array(allocationSchema, { listType: 'map', mapKeys: ['node'] }),
  pool: poolStatusSchema,
  conditions: s.array(conditionSchema, { listType: 'map', mapKeys: ['type'] }),
});

export type PeerPodConfigSpec = Static<typeof peerPodConfigSpecSchema>;
export type PeerPodConfigStatus = Static<typeof peerPodConfigStatusSchema>;

export interface PeerPodConfig extends KubeObject {
  spec: PeerPodConfigSpec;
  status?: PeerPodConfigStatus & { conditions?: Condition[] };
}

export const peerPodConfigOpenApiSchema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: s.object({}),
  spec: peerPodConfigSpecSchema,
  status: peerPodConfigStatusSchema,
});

export function peerPodConfigCrd(): KubeObject {
  return customResourceDefinition({
    group: GROUP,
    version: VERSION,
    scope: 'Namespaced',
    names: { kind: 'PeerPodConfig', plural: 'peerpodconfigs', singular: 'peerpodconfig', shortNames: ['ppc'] },
    printerColumns: [
      { name: 'Limit', type: 'string', jsonPath: '.spec.limit' },
      { name: 'Per-Node', type: 'integer', jsonPath: '.spec.limitPerNode' },
      { name: 'Nodes', type: 'integer', jsonPath: '.status.nodes' },
      { name: 'VMs', type: 'integer', jsonPath: '.status.totalVMs' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    openAPIV3Schema: peerPodConfigOpenApiSchema.json,
  });
}

/** `spec.limit` as a number (the schema guarantees digits); undefined when limitPerNode is used. */
export function parseLimit(limit: number | string | undefined): number | undefined {
  if (limit === undefined) return undefined;
  const n = typeof limit === 'number' ? limit : Number.parseInt(limit, 10);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
