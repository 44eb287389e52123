// PeerPod (confidentialcontainers.org/v1alpha1): the record a node's adaptor writes for each pod VM,
// owned by the Pod and guarded by `peer.pod/finalizer`, so the VM can be deleted even when the
// adaptor that created it is gone.
//
// Wire compatibility with upstream (cloud-api-adaptor peerpod-ctrl): `spec.cloudProvider` and
// `spec.instanceID` are both optional strings, nothing else is required, and the status keeps the
// upstream field `cleand` (sic), so objects the Go adaptor writes are accepted unchanged. The rest of
// the status is ours: upstream never writes one.
import { customResource } from '../../runtime/index.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { s } from '../../runtime/index.ts';
import type { Static } from '../../runtime/index.ts';

export const GROUP = 'confidentialcontainers.org';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const PeerPods = customResource(GROUP, VERSION, 'PeerPod', 'peerpods', true);

/** The finalizer the adaptor puts on every PeerPod; we remove only this one. */
export const PEERPOD_FINALIZER = 'peer.pod/finalizer';

/**
 * Annotations our adaptor adds to the PeerPods it writes (upstream writes none). Annotations, not new
 * spec or status fields: upstream's Go controller writes PeerPods back through its own struct, which
 * drops fields it does not know but keeps metadata.annotations. The printer columns show them.
 */
export const PeerPodAnnotations = {
  /** The node whose adaptor owns the VM (an annotation: node names can exceed label limits). */
  node: 'peerpods.io/node',
  /** The VM's first IP address: the pod IP the adaptor reports. */
  ip: 'peerpods.io/ip',
  /** The size the pod asked for: `<vCPUs>/<memory>Mi` (`default` for a part left to the provider), or the machine type. */
  vmSize: 'peerpods.io/vm-size',
  /** Consecutive failed creates of the pod's VM since the last one that worked (the create-retry guard). */
  createFailures: 'peerpods.io/create-failures',
  /** RFC 3339 time (milliseconds) before which no new create starts. */
  createRetryAt: 'peerpods.io/create-retry-at',
  /** `"true"` once the adaptor stopped retrying; the pod carries the VMCreateFailed condition. */
  createGaveUp: 'peerpods.io/create-gave-up',
  /** The provider's error of the last failed create, as the Warning event and the pod condition name it. */
  createLastError: 'peerpods.io/create-last-error',
} as const;

export const PHASES = ['Active', 'Deleting', 'DeleteFailed', 'Unowned'] as const;
export type PeerPodPhase = (typeof PHASES)[number];

/** Condition types on `status.conditions`. */
export const ConditionTypes = {
  /** The provider named by spec.cloudProvider is known and its configuration verifies. */
  ProviderReady: 'ProviderReady',
  /** The instance was deleted (True) or the last attempt failed (False, reason says why). */
  InstanceDeleted: 'InstanceDeleted',
  /** The PeerPod has an owner reference to the Pod it belongs to. */
  Owned: 'Owned',
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

export const peerPodSpecSchema = s.object(
  {
    cloudProvider: s.string({
      description: 'Name of the cloud provider that created the instance (aws, azure, gcp, libvirt, qemu, ...).',
    }),
    instanceID: s.string({ description: 'Provider-specific ID of the pod VM (libvirt: domain UUID, aws: i-...).' }),
  },
  { description: 'What the adaptor recorded when it created the pod VM.' },
);

export const peerPodStatusSchema = s.object(
  {
    cleand: s.boolean({ description: 'Upstream field (sic); accepted for compatibility, never written.' }),
    phase: s.enum(PHASES, { description: 'Active, Deleting, DeleteFailed or Unowned.' }),
    observedGeneration: s.integer({ minimum: 0 }),
    lastError: s.string({ description: 'The last error seen while deleting the instance.' }),
    conditions: s.array(conditionSchema, { listType: 'map', mapKeys: ['type'] }),
  },
  { description: 'Written by the PeerPod controller.' },
);

export type PeerPodSpec = Static<typeof peerPodSpecSchema>;
export type PeerPodStatus = Static<typeof peerPodStatusSchema>;

export interface PeerPod extends KubeObject {
  spec?: PeerPodSpec;
  status?: PeerPodStatus;
}

export const peerPodOpenApiSchema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: s.object({}),
  spec: peerPodSpecSchema,
  status: peerPodStatusSchema,
});
