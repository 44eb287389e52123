// The hand-kept patch metadata of built-in kinds: the fields k8s.io/api tags with
// `patchStrategy:"merge"` (with their `patchMergeKey`), `retainKeys` or `replace`. Every list not
// listed here is atomic for a strategic merge patch, and every map not listed merges per key.
//
// Map lists carry their `+listMapKey` keys with the patchMergeKey first: strategic merge patch
// uses only the first, server-side apply all of them. Two lists are merge lists for strategic
// merge patch but atomic for server-side apply in kube (Pod `status.hostIPs`, Job
// `status.conditions`); the table follows strategic merge patch for them.
// Source: kubernetes/api */types.go (core/v1, apps/v1, batch/v1, policy/v1, autoscaling/v2,
// admissionregistration/v1, flowcontrol/v1, networking/v1, storage/v1) and apimachinery's
// ObjectMeta.
import type { JsonValue } from '../../apimachinery/meta/index.ts';
import type { FieldPath, ListKind } from './schema-info.ts';

export interface PatchField {
  /** Field names from the object root, list indices omitted. */
  path: FieldPath;
  /** A merge list: `map` merges items by key, `set` is a list of primitives merged by value. */
  list?: ListKind;
  /** `patchStrategy: retainKeys`: clients send `$retainKeys` for this map, or for each item of
   * this list, so that fields the client dropped are cleared (e.g. Deployment `spec.strategy`). */
  retainKeys?: boolean;
  /** `patchStrategy: replace` on a map: a patch replaces it whole. */
  atomicMap?: boolean;
  /** Values kube defaults for map-list key fields an item may omit (ports' `protocol`). */
  keyDefaults?: Readonly<Record<string, JsonValue>>;
}

const mapList = (path: FieldPath, ...keys: string[]): PatchField => ({ path, list: { type: 'map', keys } });
const setList = (path: FieldPath): PatchField => ({ path, list: { type: 'set' } });
const under = (prefix: FieldPath, fields: PatchField[]): PatchField[] =>
  fields.map((f) => ({ ...f, path: [...prefix, ...f.path] }));

const objectMeta: PatchField[] = [setList(['finalizers']), mapList(['ownerReferences'], 'uid')];

const container: PatchField[] = [
  { ...mapList(['ports'], 'containerPort', 'protocol'), keyDefaults: { protocol: 'TCP' } },
  mapList(['env'], 'name'),
  mapList(['volumeMounts'], 'mountPath'),
  mapList(['volumeDevices'], 'devicePath'),
];

const podSpec: PatchField[] = [
  ...['containers', 'initContainers', 'ephemeralContainers'].flatMap((f) => [
    mapList([f], 'name'),
    ...under([f], container),
  ]),
  mapList(['imagePullSecrets'], 'name'),
  { ...mapList(['volumes'], 'name'), retainKeys: true },
  mapList(['hostAliases'], 'ip'),
  mapList(['topologySpreadConstraints'], 'topologyKey', 'whenUnsatisfiable'),
  mapList(['schedulingGates'], 'name'),
  { ...mapList(['resourceClaims'], 'name'), retainKeys: true },
];

const podTemplate: PatchField[] = [...under(['metadata'], objectMeta), ...under(['spec'], podSpec)];
const conditions = mapList(['status', 'conditions'], 'type');
const workload = (...extra: PatchField[]): PatchField[] => [
  ...under(['spec', 'template'], podTemplate),
  conditions,
  ...extra,
];
const matchConditions = (prefix: FieldPath): PatchField => mapList([...prefix, 'matchConditions'], 'name');
const webhookConfiguration: PatchField[] = [mapList(['webhooks'], 'name'), matchConditions(['webhooks'])];

/** Per kind, keyed `<group>/<Kind>` ("" for the core group); `metadata` comes on top of these. */
export const BUILTIN_PATCH_FIELDS: ReadonlyMap<string, readonly PatchField[]> = new Map<string, PatchField[]>([
  [
    '/Pod',
    [
      ...under(['spec'], podSpec),
      conditions,
      mapList(['status', 'podIPs'], 'ip'),
      mapList(['status', 'hostIPs'], 'ip'),
      { ...mapList(['status', 'resourceClaimStatuses'], 'name'), retainKeys: true },
    ],
  ],
  ['/PodTemplate', under(['template'], podTemplate)],
  ['/ReplicationController', workload()],
  ['/Node', [setList(['spec', 'podCIDRs']), conditions, mapList(['status', 'addresses'], 'type')]],
  ['/Service', [{ ...mapList(['spec', 'ports'], 'port', 'protocol'), keyDefaults: { protocol: 'TCP' } }, conditions]],
  ['/ServiceAccount', [mapList(['secrets'], 'name')]],
  ['/Namespace', [conditions]],
  ['/PersistentVolumeClaim', [conditions]],
  ['/ComponentStatus', [mapList(['conditions'], 'type')]],
  ['apps/Deployment', workload({ path: ['spec', 'strategy'], retainKeys: true })],
  ['apps/ReplicaSet', workload()],
  ['apps/DaemonSet', workload()],
  ['apps/StatefulSet', workload()],
  ['batch/Job', workload()],
  [
    'batch/CronJob',
    under(['spec', 'jobTemplate'], [...under(['metadata'], objectMeta), ...under(['spec', 'template'], podTemplate)]),
  ],
  ['autoscaling/HorizontalPodAutoscaler', [conditions]],
  ['policy/PodDisruptionBudget', [{ path: ['spec', 'selector'], atomicMap: true }, conditions]],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', webhookConfiguration],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', webhookConfiguration],
  [
    'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
    [matchConditions(['spec']), mapList(['spec', 'variables'], 'name')],
  ],
  ['flowcontrol.apiserver.k8s.io/FlowSchema', [conditions]],
  ['flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration', [conditions]],
  ['networking.k8s.io/ServiceCIDR', [conditions]],
  ['storage.k8s.io/CSINode', [mapList(['spec', 'drivers'], 'name')]],
]);

/** ObjectMeta's merge lists, present in every kind, custom ones included. */
export const METADATA_PATCH_FIELDS: readonly PatchField[] = under(['metadata'], objectMeta);
