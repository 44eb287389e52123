// What the PeerPodConfig controller may do when it honours only its own namespace's PeerPodConfigs
// (`run peerpodconfig-controller`; the source of its part of config/rbac/), each rule derived from a
// call it makes. Every object it deploys has a fixed name, so all but `create` (which kube cannot
// narrow by name) name it; list/watch of them work by name because its informers select them with
// `metadata.name=<name>` in that mode.
// ClusterRole (nodes and webhook configurations are cluster-scoped):
// - nodes list/watch: its informer (capacity is spread over the matching nodes).
// - nodes patch: the claim annotation on a node it advertises capacity on.
// - nodes/status patch: the extended resource in capacity and allocatable.
// - mutatingwebhookconfigurations create, and get/list/watch/patch/delete of its one configuration:
//   created or patched with the webhook's CA bundle, watched for drift, deleted on cleanup.
// - namespaces get of kube-system: its UID is the tag of this cluster's VMs, which the capacity
//   evaluation (provider-capacity.ts) counts as already held.
// - peerpods list, every namespace: the VM sizes in use that capacity is counted at
//   (sizes-in-use.ts); a list each evaluation rather than an informer, so a cluster that does not
//   grant it gets capacity at the default size instead of a controller whose caches never sync.
// Role in its namespace:
// - peerpodconfigs list/watch (informer), get/patch (its finalizer, added and removed by patch).
// - peerpodconfigs/status patch: conditions and allocation.
// - peerpodconfigs/finalizers update: the owner references it puts on what it deploys block the
//   owner's deletion, which OwnerReferencesPermissionEnforcement allows only to this verb.
// - daemonsets, deployments, services, secrets: create, and get/list/watch/patch of the adaptor
//   DaemonSet, the webhook Deployment, Service and certificate Secret (the garbage collector deletes them).
//   Another provider's adaptor DaemonSet (`peerpodconfig-ctrl-caa-daemon-<runtimeClass>`, binding.ts)
//   is not named here: its own Role names it, with the ConfigMap and Secret that config names
//   (peerPodConfigProviderRules; `peerpods manifests --extra-provider`).
// - configmaps and secrets get of the provider settings (peer-pods-cm, peer-pods-secret): CLOUD_PROVIDER,
//   the VM size and the cloud credentials the capacity evaluation asks the provider with. A config
//   naming its own (spec.configMapName, spec.cloudSecretName) gets them in its provider's Role; refused
//   (or a Secret that exists but may not be read), it reports CapacityUnknown and the configured limit stands.
// - events create/patch: on the PeerPodConfig.
// - leases: its leader-election Lease.
import { eventRecorderRules, leaderElectionRules } from '../../../runtime/index.ts';
import type { ComponentRules, PolicyRule } from '../../../runtime/index.ts';
import { DEFAULT_CLOUD_SECRET_NAME, DEFAULT_CONFIGMAP_NAME, GROUP } from '../../api/index.ts';
import {
  ADAPTOR_DAEMONSET,
  adaptorDaemonSetForRuntimeClass,
  WEBHOOK_DEPLOYMENT,
  WEBHOOK_SECRET,
  WEBHOOK_SERVICE,
  webhookConfigurationName,
} from './objects.ts';

const OWN = ['get', 'list', 'watch', 'patch'];

/** create (unnamed) and the verbs on the one object of that name. */
function named(apiGroup: string, resource: string, name: string, verbs: string[] = OWN): PolicyRule[] {
  return [
    { apiGroups: [apiGroup], resources: [resource], verbs: ['create'] },
    { apiGroups: [apiGroup], resources: [resource], verbs, resourceNames: [name] },
  ];
}

export function peerPodConfigRbacRules(o: { namespace: string; leaseName: string }): ComponentRules {
  return {
    cluster: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch', 'patch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
      ...named('admissionregistration.k8s.io', 'mutatingwebhookconfigurations', webhookConfigurationName(o.namespace), [
        ...OWN,
        'delete',
      ]),
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['kube-system'] },
      { apiGroups: [GROUP], resources: ['peerpods'], verbs: ['list'] },
    ],
    namespaced: [
      { apiGroups: [GROUP], resources: ['peerpodconfigs'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs/status'], verbs: ['patch'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs/finalizers'], verbs: ['update'] },
      ...named('apps', 'daemonsets', ADAPTOR_DAEMONSET),
      ...named('apps', 'deployments', WEBHOOK_DEPLOYMENT),
      ...named('', 'services', WEBHOOK_SERVICE),
      ...named('', 'secrets', WEBHOOK_SECRET),
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [DEFAULT_CONFIGMAP_NAME] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [DEFAULT_CLOUD_SECRET_NAME] },
      ...eventRecorderRules(),
      ...leaderElectionRules(o.leaseName),
    ],
  };
}

/**
 * What a further provider's config (RuntimeClass `runtimeClassName`) takes: its adaptor DaemonSet,
 * and get of the ConfigMap and Secret it names (the capacity evaluation's settings), each by name.
 */
export function peerPodConfigProviderRules(
  runtimeClassName: string,
  settings: { configMap: string; secret: string },
): PolicyRule[] {
  const name = adaptorDaemonSetForRuntimeClass(runtimeClassName);
  return [
    { apiGroups: ['apps'], resources: ['daemonsets'], verbs: OWN, resourceNames: [name] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [settings.configMap] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [settings.secret] },
  ];
}
