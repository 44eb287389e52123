// DrainerConfig (core.giantswarm.io/v1alpha1): a request to drain one workload-cluster node before
// its node pod goes. The drainer controller creates it in the cluster's namespace, named after the
// node pod; the node drainer answers with the condition Drained or Timeout.
import { customResource, customResourceDefinition, s } from '../../runtime/index.ts';
import type { KubeObject, Static } from '../../runtime/index.ts';

export const CORE_GROUP = 'core.giantswarm.io';
export const CORE_VERSION = 'v1alpha1';
export const DrainerConfigs = customResource(CORE_GROUP, CORE_VERSION, 'DrainerConfig', 'drainerconfigs', true);

export const DrainerConditions = { Drained: 'Drained', Timeout: 'Timeout' } as const;
/** The version upstream's drainer writes; node-operator ignored it, so do we. */
export const DRAINER_VERSION_BUNDLE = '0.2.0';
/** How long a drain may take before the node drainer gives up and reports Timeout (node-operator #61). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10 * 60_000;

const conditionSchema = s.object(
  {
    type: s.string(),
    status: s.enum(['True', 'False', 'Unknown'] as const),
    lastHeartbeatTime: s.dateTime(),
    lastTransitionTime: s.dateTime(),
    reason: s.string(),
    message: s.string(),
  },
  { required: ['type', 'status'] },
);

const specSchema = s.object(
  {
    guest: s.object(
      {
        cluster: s.object(
          { api: s.object({ endpoint: s.string() }, { required: ['endpoint'] }), id: s.string() },
          { required: ['api', 'id'] },
        ),
        node: s.object({ name: s.string() }, { required: ['name'] }),
      },
      { required: ['cluster', 'node'] },
    ),
    versionBundle: s.object({ version: s.string() }),
  },
  { required: ['guest'] },
);

const statusSchema = s.object({
  conditions: s.array(conditionSchema, { listType: 'map', mapKeys: ['type'] }),
  evictedPods: s.integer({ minimum: 0, description: 'Pods evicted from the node so far.' }),
  remainingPods: s.integer({ minimum: 0, description: 'Pods still to evict at the last attempt.' }),
});

const drainerConfigSchema = s.object({
  apiVersion: s.string(),
  kind: s.string(),
  metadata: s.object({}),
  spec: specSchema,
  status: statusSchema,
});

export type DrainerConfigSpec = Static<typeof specSchema>;
export type DrainerConfigStatus = Static<typeof statusSchema>;
export interface DrainerConfig extends KubeObject {
  spec: DrainerConfigSpec;
  status?: DrainerConfigStatus;
}

/** True when the drain is over, one way or the other. */
export function drainFinished(dc: DrainerConfig | undefined): boolean {
  return (dc?.status?.conditions ?? []).some(
    (c) => (c.type === DrainerConditions.Drained || c.type === DrainerConditions.Timeout) && c.status === 'True',
  );
}

export function drainerConfigCrd(): KubeObject {
  return customResourceDefinition({
    group: CORE_GROUP,
    version: CORE_VERSION,
    scope: 'Namespaced',
    names: { kind: 'DrainerConfig', plural: 'drainerconfigs', singular: 'drainerconfig' },
    printerColumns: [
      { name: 'Node', type: 'string', jsonPath: '.spec.guest.node.name' },
      { name: 'Drained', type: 'string', jsonPath: '.status.conditions[?(@.type=="Drained")].status' },
      { name: 'Timeout', type: 'string', jsonPath: '.status.conditions[?(@.type=="Timeout")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    openAPIV3Schema: drainerConfigSchema.json,
  });
}
