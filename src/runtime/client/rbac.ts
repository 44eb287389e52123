// What an operator declares it may do, as PolicyRules: the operators generate their Roles and
// ClusterRoles from rule sets, starting from what the runtime itself does on their behalf (below).
import type { PolicyRule } from '../../apimachinery/core/index.ts';

export type { PolicyRule };

/**
 * What the manager's LeaderElector does with its Lease (a Role in the Lease's namespace): get and
 * update that one Lease (renewals, release on shutdown); create it the first time. `create` cannot
 * be narrowed by name in kube (the name is not known when the request is authorized).
 */
export function leaderElectionRules(leaseName: string): PolicyRule[] {
  return [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: [leaseName] },
  ];
}

/**
 * What an EventRecorder does: create an Event, and patch it when the correlator folds a repeat into
 * its count. Events live in the involved object's namespace (`default` for cluster-scoped objects),
 * so the rule goes in a Role there, or in a ClusterRole when the objects are in any namespace.
 */
export function eventRecorderRules(): PolicyRule[] {
  return [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }];
}

/** A component's rules: a ClusterRole for what spans namespaces, a Role in its own namespace for the rest. */
export interface ComponentRules {
  cluster: PolicyRule[];
  namespaced: PolicyRule[];
  /** Roles in other namespaces it works in (where its custom resources or credentials live), by namespace. */
  otherNamespaces?: Record<string, PolicyRule[]>;
}
