// What the PeerPodConfig controller may do (the source of its part of config/rbac/). Cluster-wide:
// nodes (it advertises kata.peerpods.io/vm in their status), PeerPodConfigs in any namespace, the
// MutatingWebhookConfiguration (cluster-scoped) and events. Namespaced (a Role in the operator's
// namespace, where the PeerPodConfig lives): the adaptor DaemonSet, the webhook Deployment and
// Service, and the webhook certificate Secret.
import { GROUP } from '../../api/index.ts';
import type { PolicyRule } from '../../../runtime/index.ts';

const MANAGE = ['create', 'get', 'list', 'watch', 'patch', 'update', 'delete'];

export function peerPodConfigRbacRules(): { cluster: PolicyRule[]; namespaced: PolicyRule[] } {
  return {
    cluster: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs/status'], verbs: ['get', 'patch', 'update'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs/finalizers'], verbs: ['update'] },
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], verbs: MANAGE },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ],
    namespaced: [
      { apiGroups: ['apps'], resources: ['daemonsets', 'deployments'], verbs: MANAGE },
      { apiGroups: [''], resources: ['services', 'secrets'], verbs: MANAGE },
    ],
  };
}
