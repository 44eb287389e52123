// What the PeerPod controller may do (the source of its part of config/rbac/), each rule derived
// from a call it makes:
// ClusterRole (PeerPods live in every namespace):
// - peerpods list/watch: its informer; the orphan sweep's fresh list.
// - peerpods get/patch: removing its finalizer (a guarded JSON patch, re-read on conflict).
// - peerpods delete: the older duplicates of a Pod's PeerPod.
// - peerpods/status patch: phase, conditions, lastError.
// - pods get: the owner Pod, so a provider error is also reported on it as an event.
// - namespaces get kube-system: the cluster's UID, the orphan sweep's VM tag.
// - events create/patch: on PeerPods and Pods (their namespaces) and on kube-system (in `default`).
// Role in $PEERPODS_NAMESPACE: the settings (list/watch by name), its leader-election Lease, and
// peerpodconfigs list/watch: which config's settings serve a PeerPod's provider (config-settings.ts).
// A further provider whose config names its own ConfigMap/Secret adds a Role naming them
// (peerPodProviderRules; `peerpods manifests --extra-provider`).
// Compared with upstream's kubebuilder markers: no create/update on PeerPods, no finalizers
// subresource (it sets no owner reference), no byom-ip-pool-state ConfigMap (no byom provider).
import { eventRecorderRules, leaderElectionRules } from '../../../runtime/index.ts';
import type { ComponentRules, PolicyRule } from '../../../runtime/index.ts';
import { GROUP } from '../../api/index.ts';
import { credentialRules } from '../../providers/index.ts';

export function peerPodRbacRules(o: { configMap: string; secret: string; leaseName: string }): ComponentRules {
  return {
    cluster: [
      { apiGroups: [GROUP], resources: ['peerpods'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
      { apiGroups: [GROUP], resources: ['peerpods/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['kube-system'] },
      ...eventRecorderRules(),
    ],
    namespaced: [
      ...credentialRules(o),
      ...leaderElectionRules(o.leaseName),
      { apiGroups: [GROUP], resources: ['peerpodconfigs'], verbs: ['list', 'watch'] },
    ],
  };
}

/** What a further provider's own ConfigMap and Secret take: list/watch of each, by name. */
export function peerPodProviderRules(names: { configMap: string; secret: string }): PolicyRule[] {
  return credentialRules(names);
}
