// What the adaptor may do (the source of its part of config/rbac/; the PeerPodConfig controller's
// DaemonSet runs it as ADAPTOR_SERVICE_ACCOUNT), each rule derived from a call it makes:
// ClusterRole (its node's pods are in every namespace):
// - pods list/watch: its informer (`spec.nodeName=<node>`); get: a pod's fresh state before it stops
//   the VM; delete: finishing a pod whose VM is gone (it is the kubelet for these pods).
// - pods/status patch: the pod's phase and conditions.
// - pods/finalizers update: the PeerPod's owner reference to its Pod blocks the Pod's deletion,
//   which OwnerReferencesPermissionEnforcement allows only to this verb.
// - peerpods list/watch (informer), create (the VM record), get/patch (its fields, the finalizer).
// - nodes list/watch: its own node, selected by name (not known when the rules are written).
// - namespaces get kube-system: the cluster's UID, the VM tag orphan sweeps look for.
// - events create/patch: on the pods, in their namespaces.
// Role in $PEERPODS_NAMESPACE: the settings, by name, and the warm pool's objects (poolRules) (a further provider whose config names its own
// ConfigMap/Secret adds a Role naming them: adaptorProviderRules). Compared with upstream CAA's role: pods are
// reconciled rather than handed over by the shim, state lives in PeerPods, and no nodes/status
// (node capacity is the PeerPodConfig controller's job).
import { eventRecorderRules } from '../../runtime/index.ts';
import type { ComponentRules, PolicyRule } from '../../runtime/index.ts';
import { GROUP } from '../api/index.ts';
import { credentialRules } from '../providers/index.ts';

export function adaptorRbacRules(names: { configMap: string; secret: string }): ComponentRules {
  return {
    cluster: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
      { apiGroups: [GROUP], resources: ['peerpods'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['kube-system'] },
      ...eventRecorderRules(),
    ],
    namespaced: [...credentialRules(names), ...poolRules()],
  };
}

/**
 * The warm pool (pool/), in $PEERPODS_NAMESPACE: the PeerPodConfigs (its settings) and their
 * status (each node's pool line); the pool records live there, so retiring one (delete) needs no
 * cluster-wide verb (claiming one is a patch under its resourceVersion, which the ClusterRole grants).
 */
function poolRules(): PolicyRule[] {
  return [
    { apiGroups: [GROUP], resources: ['peerpodconfigs'], verbs: ['list', 'watch'] },
    { apiGroups: [GROUP], resources: ['peerpodconfigs/status'], verbs: ['patch'] },
    { apiGroups: [GROUP], resources: ['peerpods'], verbs: ['delete'] },
  ];
}

/** A further provider's own ConfigMap and Secret, which its DaemonSet's adaptors read (`--config-map`, `--secret`). */
export function adaptorProviderRules(names: { configMap: string; secret: string }): PolicyRule[] {
  return credentialRules(names);
}
