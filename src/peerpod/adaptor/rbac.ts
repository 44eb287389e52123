// What the adaptor may do (for config/rbac/ when the adaptor DaemonSet is generated). Compared with
// upstream CAA's role: get/list/watch on pods (it reconciles them instead of being called by the
// shim), pods/status patch and pods delete (it is the kubelet for these pods here), PeerPods get/
// list/watch besides create/patch (state lives there, not in memory), and no nodes/status (node
// capacity is the PeerPodConfig controller's job).
import type { PolicyRule } from '../../runtime/index.ts';
import { GROUP } from '../api/index.ts';

export interface AdaptorRbac {
  /** ClusterRole. */
  cluster: PolicyRule[];
  /** Role in $PEERPODS_NAMESPACE: the two settings objects. */
  settings: PolicyRule[];
}

export function adaptorRbacRules(names: { configMap: string; secret: string }): AdaptorRbac {
  return {
    cluster: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
      { apiGroups: [GROUP], resources: ['peerpods'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      // blockOwnerDeletion on a PeerPod's reference to its Pod needs this (OwnerReferencesPermissionEnforcement).
      { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['kube-system'] },
    ],
    settings: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], resourceNames: [names.configMap] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'], resourceNames: [names.secret] },
    ],
  };
}
