// The built-in kinds the runtime and its operators touch, plus a constructor for custom resources.
// Only group/version/plural/scope are needed to build URLs, so no discovery round-trip is made.
import type { ResourceType } from './types.ts';

function rt(group: string, version: string, kind: string, plural: string, namespaced: boolean): ResourceType {
  return Object.freeze({ group, version, kind, plural, namespaced });
}

export const Pods = rt('', 'v1', 'Pod', 'pods', true);
export const Nodes = rt('', 'v1', 'Node', 'nodes', false);
export const Namespaces = rt('', 'v1', 'Namespace', 'namespaces', false);
export const ConfigMaps = rt('', 'v1', 'ConfigMap', 'configmaps', true);
export const Secrets = rt('', 'v1', 'Secret', 'secrets', true);
export const Services = rt('', 'v1', 'Service', 'services', true);
export const Endpoints = rt('', 'v1', 'Endpoints', 'endpoints', true);
export const Events = rt('', 'v1', 'Event', 'events', true);
export const ServiceAccounts = rt('', 'v1', 'ServiceAccount', 'serviceaccounts', true);
export const PersistentVolumeClaims = rt('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true);
export const PersistentVolumes = rt('', 'v1', 'PersistentVolume', 'persistentvolumes', false);
export const ReplicationControllers = rt('', 'v1', 'ReplicationController', 'replicationcontrollers', true);
export const ResourceQuotas = rt('', 'v1', 'ResourceQuota', 'resourcequotas', true);
export const LimitRanges = rt('', 'v1', 'LimitRange', 'limitranges', true);
export const Leases = rt('coordination.k8s.io', 'v1', 'Lease', 'leases', true);
export const EventsV1 = rt('events.k8s.io', 'v1', 'Event', 'events', true);
export const Deployments = rt('apps', 'v1', 'Deployment', 'deployments', true);
export const DaemonSets = rt('apps', 'v1', 'DaemonSet', 'daemonsets', true);
export const ReplicaSets = rt('apps', 'v1', 'ReplicaSet', 'replicasets', true);
export const StatefulSets = rt('apps', 'v1', 'StatefulSet', 'statefulsets', true);
export const ControllerRevisions = rt('apps', 'v1', 'ControllerRevision', 'controllerrevisions', true);
export const Jobs = rt('batch', 'v1', 'Job', 'jobs', true);
export const CronJobs = rt('batch', 'v1', 'CronJob', 'cronjobs', true);
export const CustomResourceDefinitions = rt(
  'apiextensions.k8s.io',
  'v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  false,
);
export const MutatingWebhookConfigurations = rt(
  'admissionregistration.k8s.io',
  'v1',
  'MutatingWebhookConfiguration',
  'mutatingwebhookconfigurations',
  false,
);
export const ValidatingWebhookConfigurations = rt(
  'admissionregistration.k8s.io',
  'v1',
  'ValidatingWebhookConfiguration',
  'validatingwebhookconfigurations',
  false,
);
export const RuntimeClasses = rt('node.k8s.io', 'v1', 'RuntimeClass', 'runtimeclasses', false);
export const Ingresses = rt('networking.k8s.io', 'v1', 'Ingress', 'ingresses', true);
export const NetworkPolicies = rt('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', true);
export const Roles = rt('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true);
export const RoleBindings = rt('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true);
export const ClusterRoles = rt('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false);
export const ClusterRoleBindings = rt(
  'rbac.authorization.k8s.io',
  'v1',
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
);
export const PodDisruptionBudgets = rt('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true);
export const PriorityClasses = rt('scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', false);
export const StorageClasses = rt('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false);

/** Describes a custom resource kind (or any kind not in the built-in table). */
export function customResource(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
): ResourceType {
  if (!version || !kind || !plural) throw new TypeError('customResource: version, kind and plural are required');
  return rt(group, version, kind, plural.toLowerCase(), namespaced);
}

/** "v1" for the core group, "group/version" otherwise. */
export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** A stable string naming the resource, e.g. "deployments.v1.apps" or "pods.v1". */
export function resourceKey(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.version}.${type.group}` : `${type.plural}.${type.version}`;
}
