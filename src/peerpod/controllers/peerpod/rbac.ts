// What the PeerPod controller may do, and nothing more (the source of config/rbac/). Compared with
// upstream's kubebuilder markers: no create/update on PeerPods (it never creates one, and removes
// its finalizer by patch), no byom-ip-pool-state ConfigMap (no byom provider), and the settings are
// readable only under their two names; list/watch there work because our informers select them
// with `metadata.name=<name>`, which RBAC authorizes through resourceNames.
import type { PolicyRule } from '../../../runtime/index.ts';
import { GROUP } from '../../api/index.ts';

export interface PeerPodRbac {
  /** ClusterRole: PeerPods everywhere, owner Pods (for events), events, the kube-system namespace (cluster UID). */
  cluster: PolicyRule[];
  /** Role in $PEERPODS_NAMESPACE: the two settings objects. */
  settings: PolicyRule[];
  /** Role in $PEERPODS_NAMESPACE: leader election. */
  leaderElection: PolicyRule[];
}

export function peerPodRbacRules(names: { configMap: string; secret: string }): PeerPodRbac {
  return {
    cluster: [
      { apiGroups: [GROUP], resources: ['peerpods'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
      { apiGroups: [GROUP], resources: ['peerpods/status'], verbs: ['get', 'patch'] },
      { apiGroups: [GROUP], resources: ['peerpods/finalizers'], verbs: ['update'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['kube-system'] },
    ],
    settings: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], resourceNames: [names.configMap] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'], resourceNames: [names.secret] },
    ],
    leaderElection: [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ],
  };
}
