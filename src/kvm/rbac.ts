// What the kvm-operator may do in the management cluster (the source of its part of config/rbac/).
// It is cluster-wide by nature: every workload cluster gets its own namespace and two
// ClusterRoleBindings. Binding a ClusterRole needs `bind` on it, granted only for the two roles
// the options name.
import type { PolicyRule } from '../runtime/index.ts';
import { CORE_GROUP, PROVIDER_GROUP, RELEASE_GROUP } from './api/index.ts';

const MANAGE = ['create', 'get', 'list', 'watch', 'patch', 'update', 'delete'];
const READ = ['get', 'list', 'watch'];

export function kvmOperatorRbacRules(clusterRoles: { general: string; psp: string }): PolicyRule[] {
  return [
    { apiGroups: [PROVIDER_GROUP], resources: ['kvmconfigs'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
    { apiGroups: [PROVIDER_GROUP], resources: ['kvmconfigs/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: [RELEASE_GROUP], resources: ['releases'], verbs: READ },
    { apiGroups: [CORE_GROUP], resources: ['drainerconfigs'], verbs: MANAGE },
    { apiGroups: [CORE_GROUP], resources: ['drainerconfigs/status'], verbs: ['get', 'patch', 'update'] },
    {
      apiGroups: [''],
      resources: ['namespaces', 'serviceaccounts', 'configmaps', 'services', 'endpoints'],
      verbs: MANAGE,
    },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: MANAGE },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'] },
    { apiGroups: [''], resources: ['secrets'], verbs: READ },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: MANAGE },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: MANAGE },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterrolebindings'], verbs: MANAGE },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      verbs: ['bind'],
      resourceNames: [clusterRoles.general, clusterRoles.psp],
    },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: MANAGE },
  ];
}
