// The rules under test, read from the generator at run time (`deployObjects()`: every Role and
// ClusterRole, and the component whose ServiceAccount its binding names), and which behaviour
// needs each — hand-written from the comments of the rule generators
// (src/peerpod/controllers/peerpod/rbac.ts, src/peerpod/controllers/peerpodconfig/rbac.ts,
// src/peerpod/adaptor/rbac.ts, src/kvm/rbac.ts).
import { deployObjects } from '../../../../src/cli/manifests/layers.ts';
import type { KubeObject, PolicyRule } from '../../../../src/runtime/index.ts';
import { adaptorDaemonSetForRuntimeClass } from '../../../../src/peerpod/index.ts';
import * as probes from './probes.ts';
import * as providerProbes from './provider-probes.ts';
import * as poolProbes from './pool-probes.ts';
import { EXTRA_PROVIDER, WORLD_MANIFEST } from './cluster.ts';
import type { Probe } from './probes.ts';

export interface RoleRef {
  kind: 'Role' | 'ClusterRole';
  name: string;
  namespace?: string;
}

export interface GeneratedRule {
  /** The ServiceAccount the role is bound to. */
  component: string;
  role: RoleRef;
  index: number;
  rule: PolicyRule;
}

const roleKey = (r: RoleRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/** Every PolicyRule of every generated Role and ClusterRole, with its component. */
export function generatedRules(): { rules: GeneratedRule[]; namespace: string } {
  const objects = deployObjects(WORLD_MANIFEST);
  const owner = new Map<string, string>();
  let namespace = '';
  for (const b of objects.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')) {
    const ref = (b as KubeObject & { roleRef: { kind: 'Role' | 'ClusterRole'; name: string } }).roleRef;
    const subjects = (b as KubeObject & { subjects: Array<{ kind: string; name: string; namespace: string }> })
      .subjects;
    const sa = subjects.find((s) => s.kind === 'ServiceAccount');
    if (!sa) continue;
    namespace = sa.namespace;
    const at = ref.kind === 'Role' ? b.metadata.namespace : undefined;
    owner.set(roleKey({ kind: ref.kind, name: ref.name, ...(at ? { namespace: at } : {}) }), sa.name);
  }
  const rules: GeneratedRule[] = [];
  for (const o of objects.filter((x) => x.kind === 'Role' || x.kind === 'ClusterRole')) {
    const role: RoleRef = {
      kind: o.kind as 'Role' | 'ClusterRole',
      name: o.metadata.name as string,
      ...(o.kind === 'Role' ? { namespace: o.metadata.namespace as string } : {}),
    };
    const component = owner.get(roleKey(role));
    if (!component) throw new Error(`${roleKey(role)} is bound to no ServiceAccount`);
    ((o as KubeObject & { rules: PolicyRule[] }).rules ?? []).forEach((rule, index) =>
      rules.push({ component, role, index, rule }),
    );
  }
  return { rules, namespace };
}

export function describeRule(r: PolicyRule): string {
  const groups = (r.apiGroups ?? []).map((g) => g || 'core').join(',');
  const names = r.resourceNames?.length ? ` names=${r.resourceNames.join(',')}` : '';
  return `${groups}/${(r.resources ?? []).join(',')} [${(r.verbs ?? []).join(',')}]${names}`;
}

/**
 * (component, resource[/subresource]) → the behaviour that needs it; from the generators' comments.
 * `resource:name` keys a rule naming that object, where one resource serves two behaviours.
 */
const NEEDS: Record<string, Record<string, Probe>> = {
  'peerpod-controller': {
    // informer, finalizer patch; delete of duplicates is part of the same rule
    peerpods: probes.danglingPeerPodCleaned,
    'peerpods/status': probes.peerPodStatusReported,
    // the owner Pod read for the Warning event on it
    pods: probes.providerProblemOnPod,
    events: probes.providerProblemOnPod,
    // the cluster UID the orphan sweep matches VMs on
    namespaces: probes.orphanSwept,
    // CLOUD_PROVIDER and the provider's credentials
    configmaps: probes.danglingPeerPodCleaned,
    secrets: probes.danglingPeerPodCleaned,
    leases: probes.leaseHeld,
    // which PeerPodConfig's settings serve a PeerPod's provider (its informer syncs before any reconcile)
    peerpodconfigs: probes.danglingPeerPodCleaned,
    // a further provider's own settings (its Role from `--extra-provider`)
    [`configmaps:${EXTRA_PROVIDER.configMap}`]: providerProbes.extraDanglingPeerPodCleaned,
    [`secrets:${EXTRA_PROVIDER.secret}`]: providerProbes.extraDanglingPeerPodCleaned,
  },
  'peerpodconfig-controller': {
    nodes: probes.limitAdvertised,
    'nodes/status': probes.limitAdvertised,
    peerpodconfigs: probes.limitAdvertised,
    'peerpodconfigs/status': probes.limitAdvertised,
    // blockOwnerDeletion on every object it deploys (OwnerReferencesPermissionEnforcement)
    'peerpodconfigs/finalizers': probes.webhookServiceRestored,
    daemonsets: probes.adaptorDaemonSetRestored,
    deployments: probes.webhookDeploymentRestored,
    services: probes.webhookServiceRestored,
    secrets: probes.webhookSecretRestored,
    mutatingwebhookconfigurations: probes.webhookConfigurationRestored,
    // a further provider's adaptor DaemonSet (its Role from `--extra-provider`)
    [`daemonsets:${adaptorDaemonSetForRuntimeClass(EXTRA_PROVIDER.runtimeClassName)}`]:
      providerProbes.extraAdaptorDaemonSetRestored,
    // the settings of a further provider's config, which its capacity is evaluated with
    [`configmaps:${EXTRA_PROVIDER.configMap}`]: providerProbes.extraCapacityEvaluated,
    [`secrets:${EXTRA_PROVIDER.secret}`]: providerProbes.extraCapacityEvaluated,
    // the provider settings, this cluster's VM tag and the sizes in use the capacity is counted at
    'configmaps:peer-pods-cm': probes.capacityEvaluated,
    'secrets:peer-pods-secret': probes.capacityEvaluated,
    'namespaces:kube-system': probes.capacityEvaluated,
    peerpods: probes.capacityEvaluated,
    events: probes.adaptorDaemonSetRestored,
    leases: probes.leaseHeld,
  },
  'peerpod-adaptor': {
    pods: probes.peerPodRuns,
    'pods/status': probes.peerPodRuns,
    // the PeerPod's blockOwnerDeletion reference to its Pod
    'pods/finalizers': probes.peerPodRuns,
    peerpods: probes.peerPodRuns,
    nodes: probes.peerPodRuns,
    namespaces: probes.peerPodRuns,
    events: probes.peerPodRuns,
    configmaps: probes.peerPodRuns,
    secrets: probes.peerPodRuns,
    // a further provider's own settings, which its DaemonSet's adaptors read (`--extra-provider`)
    [`configmaps:${EXTRA_PROVIDER.configMap}`]: providerProbes.extraPeerPodRuns,
    [`secrets:${EXTRA_PROVIDER.secret}`]: providerProbes.extraPeerPodRuns,
    // the warm pool (its Role in the operators' namespace): the config, its status, claiming and retiring spares
    peerpodconfigs: poolProbes.poolSpareClaimed,
    'peerpodconfigs/status': poolProbes.poolSpareClaimed,
    'peerpods+delete': poolProbes.poolSpareClaimed,
  },
  'kvm-operator': {
    kvmconfigs: probes.kvmClusterCreated,
    'kvmconfigs/status': probes.kvmClusterCreated,
    secrets: probes.kvmClusterCreated,
    releases: probes.kvmClusterCreated,
    // the node drainer's informer and its status writes
    drainerconfigs: probes.drainerConfigTimedOut,
    'drainerconfigs/status': probes.drainerConfigTimedOut,
    namespaces: probes.kvmClusterCreated,
    serviceaccounts: probes.kvmClusterCreated,
    configmaps: probes.kvmClusterCreated,
    // the masters' etcd volumes (storageType persistentVolume)
    persistentvolumeclaims: probes.kvmClusterCreated,
    deployments: probes.kvmClusterCreated,
    services: probes.kvmClusterCreated,
    endpoints: probes.kvmClusterCreated,
    ingresses: probes.kvmClusterCreated,
    pods: probes.kvmClusterCreated,
    events: probes.kvmClusterCreated,
    clusterrolebindings: probes.kvmClusterCreated,
    clusterroles: probes.kvmClusterCreated,
    leases: probes.leaseHeld,
  },
};

/** The probe a rule is needed by (through any of its resources), or undefined. */
export function probeFor(component: string, rule: PolicyRule): Probe | undefined {
  const table = NEEDS[component] ?? {};
  // A resource with several rules (cluster-wide and namespaced verbs) is told apart by its verbs.
  for (const resource of rule.resources ?? []) {
    const byVerbs = table[`${resource}+${(rule.verbs ?? []).join(',')}`];
    if (byVerbs) return byVerbs;
  }
  for (const resource of rule.resources ?? []) {
    for (const name of rule.resourceNames ?? []) if (table[`${resource}:${name}`]) return table[`${resource}:${name}`];
  }
  for (const resource of rule.resources ?? []) if (table[resource]) return table[resource];
  return undefined;
}

/**
 * A line of the component's log that shows the API server refusing this rule's request: kube's
 * 403 message for the ServiceAccount (apiserver/pkg/endpoints/handlers/responsewriters/errors.go),
 * or for `*\/finalizers`, the OwnerReferencesPermissionEnforcement refusal
 * (plugin/pkg/admission/gc/gc_admission.go). The log is JSON, so quotes may come escaped.
 */
export function forbiddenLine(log: string, user: string, rule: PolicyRule): string | undefined {
  const q = '\\\\?"';
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const alt = (xs: string[]) => `(?:${xs.map(esc).join('|')})`;
  const rbac = new RegExp(
    `is forbidden: User ${q}${esc(user)}${q} cannot ${alt(rule.verbs ?? [])} resource ${q}${alt(rule.resources ?? [])}${q}`,
  );
  // Binding a role takes `bind` on it, else RBAC's escalation check refuses
  // (rbac/validation/rule.go: ConfirmNoEscalation's message).
  const escalation = (rule.verbs ?? []).some((v) => v === 'bind' || v === 'escalate')
    ? new RegExp(
        `is forbidden: user ${q}${esc(user)}${q} \\(groups=.* is attempting to grant RBAC permissions not currently held`,
      )
    : undefined;
  const finalizers = (rule.resources ?? []).some((r) => r.endsWith('/finalizers'))
    ? /is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on/
    : undefined;
  return log.split('\n').find((l) => rbac.test(l) || (finalizers?.test(l) ?? false) || (escalation?.test(l) ?? false));
}
