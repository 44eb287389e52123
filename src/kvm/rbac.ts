// What the kvm-operator may do in the management cluster (the source of its part of config/rbac/),
// each rule derived from the calls of its controllers and handlers (calls to workload clusters go
// through their own credentials and need nothing here). It is cluster-wide by nature: every
// workload cluster gets its own namespace and two ClusterRoleBindings.
// - kvmconfigs and the credential Secrets: Roles in their namespaces (kvmOperatorRbacRules).
// - releases list/watch: the informer the cluster controller reads releases from.
// - drainerconfigs list/watch (node drainer), get/create/delete (the pod drainer); status patch.
// - namespaces get/create/delete: a cluster's namespace; serviceaccounts get/create: its account.
// - configmaps list/create/update/delete, persistentvolumeclaims list/create/delete,
//   deployments list/watch/create/update/delete: a cluster's objects, diffed by list.
// - services, ingresses get/create/update/delete: the fixed objects of a cluster's namespace.
// - endpoints get/create/update/delete: node IPs added by the drainer, cleaned up by the deleter.
// - pods list/watch (node pods), get/patch (the drain annotation, finalizers), delete (drained or
//   unhealthy nodes).
// - events create/patch: on KVMConfigs, node pods and DrainerConfigs.
// - clusterrolebindings get/create/update/delete; `bind` on the two ClusterRoles the options name
//   (binding a ClusterRole needs it).
import { eventRecorderRules, leaderElectionRules } from '../runtime/index.ts';
import type { ComponentRules, PolicyRule } from '../runtime/index.ts';
import { CORE_GROUP, PROVIDER_GROUP, RELEASE_GROUP } from './api/index.ts';
import { KVM_LEADER_ELECTION_ID } from './controllers/names.ts';
import type { ResolvedKvmOptions } from './options.ts';

const WRITE_NAMED = ['get', 'create', 'update', 'delete'];
const WATCH = ['list', 'watch'];

function clusterRules(clusterRoles: { general: string; psp: string }): PolicyRule[] {
  return [
    { apiGroups: [RELEASE_GROUP], resources: ['releases'], verbs: [...WATCH] },
    { apiGroups: [CORE_GROUP], resources: ['drainerconfigs'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
    { apiGroups: [CORE_GROUP], resources: ['drainerconfigs/status'], verbs: ['patch'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'create', 'delete'] },
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'create'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'create', 'update', 'delete'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['list', 'create', 'delete'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch', 'create', 'update', 'delete'] },
    { apiGroups: [''], resources: ['services', 'endpoints'], verbs: [...WRITE_NAMED] },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: [...WRITE_NAMED] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
    ...eventRecorderRules(),
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterrolebindings'], verbs: [...WRITE_NAMED] },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      verbs: ['bind'],
      resourceNames: [clusterRoles.general, clusterRoles.psp],
    },
  ];
}

/**
 * The ClusterRole above; a Role in the operator's namespace for its leader-election Lease only; and
 * Roles where its KVMConfigs and the workload clusters' credential Secrets live (both informers are
 * scoped to those namespaces, so no cluster-wide read of KVMConfigs or Secrets is granted).
 */
export function kvmOperatorRbacRules(
  o: Pick<ResolvedKvmOptions, 'clusterRoleGeneral' | 'clusterRolePsp' | 'kvmConfigNamespace' | 'credentialsNamespace'>,
): ComponentRules {
  const kvmConfigs: PolicyRule[] = [
    // list/watch: the informers; get: the drainers; patch: the handler chains' finalizers.
    { apiGroups: [PROVIDER_GROUP], resources: ['kvmconfigs'], verbs: ['get', 'list', 'watch', 'patch'] },
    // Cluster status and conditions.
    { apiGroups: [PROVIDER_GROUP], resources: ['kvmconfigs/status'], verbs: ['patch'] },
  ];
  // The workload-cluster credentials: a label-scoped informer, nothing else.
  const credentials: PolicyRule[] = [{ apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] }];
  const otherNamespaces: Record<string, PolicyRule[]> = { [o.kvmConfigNamespace]: kvmConfigs };
  otherNamespaces[o.credentialsNamespace] = [...(otherNamespaces[o.credentialsNamespace] ?? []), ...credentials];
  return {
    cluster: clusterRules({ general: o.clusterRoleGeneral, psp: o.clusterRolePsp }),
    namespaced: leaderElectionRules(KVM_LEADER_ELECTION_ID),
    otherNamespaces,
  };
}
