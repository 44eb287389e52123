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
// Role in its namespace:
// - peerpodconfigs list/watch (informer), get/patch (its finalizer, added and removed by patch).
// - peerpodconfigs/status patch: conditions and allocation.
// - peerpodconfigs/finalizers update: the owner references it puts on what it deploys block the
//   owner's deletion, which OwnerReferencesPermissionEnforcement allows only to this verb.
// - daemonsets, deployments, services, secrets: create, and get/list/watch/patch of the adaptor
//   DaemonSet, the webhook Deployment, Service and certificate Secret (the garbage collector deletes them).
//   Another provider's adaptor DaemonSet (`peerpodconfig-ctrl-caa-daemon-<runtimeClass>`, binding.ts)
//   is not named here: whoever adds a provider grants its name (README, "Several providers").
// - events create/patch: on the PeerPodConfig.
// - leases: its leader-election Lease.
// Not granted (yet): get of the provider's ConfigMap/Secret and of namespace kube-system, which the
// capacity evaluation (provider-capacity.ts) reads; refused, it reports CapacityUnknown and the
// configured limit stands.
import { eventRecorderRules, leaderElectionRules } from '../../../runtime/index.ts';
import type { ComponentRules, PolicyRule } from '../../../runtime/index.ts';
import { GROUP } from '../../api/index.ts';
import {
  ADAPTOR_DAEMONSET,
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
    ],
    namespaced: [
      { apiGroups: [GROUP], resources: ['peerpodconfigs'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs/status'], verbs: ['patch'] },
      { apiGroups: [GROUP], resources: ['peerpodconfigs/finalizers'], verbs: ['update'] },
      ...named('apps', 'daemonsets', ADAPTOR_DAEMONSET),
      ...named('apps', 'deployments', WEBHOOK_DEPLOYMENT),
      ...named('', 'services', WEBHOOK_SERVICE),
      ...named('', 'secrets', WEBHOOK_SECRET),
      ...eventRecorderRules(),
      ...leaderElectionRules(o.leaseName),
    ],
  };
}
