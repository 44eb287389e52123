// The built-in resources the embedded control plane serves, with the discovery facts kubectl and
// client libraries read (short names, categories, verbs, subresources).
import { ALL_VERBS, type ResourceDef } from './resource.ts';

interface Entry {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular?: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: string[];
  hasGeneration?: boolean;
  verbs?: string[];
}

const ALL = ['all'];

const ENTRIES: Entry[] = [
  // core/v1
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    subresources: ['status', 'finalize'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ALL,
    subresources: ['status', 'binding', 'eviction', 'attach', 'exec', 'log', 'portforward'],
    hasGeneration: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: ['status'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ALL,
    subresources: ['status'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'endpoints',
    kind: 'Endpoints',
    singular: 'endpoints',
    namespaced: true,
    shortNames: ['ep'],
  },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    subresources: ['token'],
  },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: ['status'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: ['status'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'resourcequotas',
    kind: 'ResourceQuota',
    namespaced: true,
    shortNames: ['quota'],
    subresources: ['status'],
  },
  { group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', namespaced: true, shortNames: ['limits'] },
  {
    group: '',
    version: 'v1',
    resource: 'replicationcontrollers',
    kind: 'ReplicationController',
    namespaced: true,
    shortNames: ['rc'],
    categories: ALL,
    subresources: ['status', 'scale'],
    hasGeneration: true,
  },
  { group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', namespaced: true },
  // apiregistration.k8s.io/v1: kube-aggregator's group, listed first under /apis as kube does.
  {
    group: 'apiregistration.k8s.io',
    version: 'v1',
    resource: 'apiservices',
    kind: 'APIService',
    namespaced: false,
    categories: ['api-extensions'],
    subresources: ['status'],
  },
  // apps/v1
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ALL,
    subresources: ['status', 'scale'],
    hasGeneration: true,
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ALL,
    subresources: ['status', 'scale'],
    hasGeneration: true,
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ALL,
    subresources: ['status'],
    hasGeneration: true,
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ALL,
    subresources: ['status', 'scale'],
    hasGeneration: true,
  },
  { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  // autoscaling: v2 is the preferred (and storage) version; v1 is a view of the same objects.
  {
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ALL,
    subresources: ['status'],
  },
  {
    group: 'autoscaling',
    version: 'v1',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ALL,
    subresources: ['status'],
  },
  // batch/v1
  {
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ALL,
    subresources: ['status'],
    hasGeneration: true,
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ALL,
    subresources: ['status'],
    hasGeneration: true,
  },
  // coordination.k8s.io/v1
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  // events.k8s.io/v1: a view over core/v1 events (see view in events-view.ts)
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  // apiextensions.k8s.io/v1
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    hasGeneration: true,
  },
  // admissionregistration.k8s.io/v1
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    hasGeneration: true,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    hasGeneration: true,
  },
  // authentication.k8s.io: answered on create and never stored (auth/reviews-authn.ts)
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    resource: 'tokenreviews',
    kind: 'TokenReview',
    namespaced: false,
    verbs: ['create'],
  },
  // kubectl 1.27's `auth whoami` asks v1beta1 (then v1alpha1); 1.28 and later ask v1 first.
  {
    group: 'authentication.k8s.io',
    version: 'v1beta1',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
  },
  // authorization.k8s.io/v1: reviews are answered on create and never stored (auth/reviews/)
  ...['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'].map(
    (kind): Entry => ({
      group: 'authorization.k8s.io',
      version: 'v1',
      resource: `${kind.toLowerCase()}s`,
      kind,
      namespaced: kind === 'LocalSubjectAccessReview',
      verbs: ['create'],
    }),
  ),
  // rbac.authorization.k8s.io/v1 (enforced by src/kube/auth/rbac/)
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
  },
  // networking.k8s.io/v1
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    kind: 'Ingress',
    namespaced: true,
    shortNames: ['ing'],
    subresources: ['status'],
    hasGeneration: true,
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
    hasGeneration: true,
  },
  // node.k8s.io/v1
  { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false },
  // discovery.k8s.io/v1 (kube-apiserver lists it after node.k8s.io)
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
  // policy/v1
  {
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: ['status'],
    hasGeneration: true,
  },
  // scheduling.k8s.io/v1
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    resource: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
  },
];

export function builtinResourceDefs(): ResourceDef[] {
  return ENTRIES.map((e) => ({
    group: e.group,
    version: e.version,
    resource: e.resource,
    kind: e.kind,
    listKind: `${e.kind}List`,
    singular: e.singular ?? e.kind.toLowerCase(),
    namespaced: e.namespaced,
    shortNames: e.shortNames,
    categories: e.categories,
    verbs: e.verbs ?? ALL_VERBS,
    subresources: e.subresources ?? [],
    builtin: true,
    hasGeneration: e.hasGeneration ?? false,
    allowUnconditionalUpdate: true,
    strategy: {},
  }));
}
