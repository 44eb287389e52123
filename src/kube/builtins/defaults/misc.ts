// Defaults for the built-in kinds outside core/v1 and the workloads: admission webhook
// configurations, RBAC, PriorityClass, Lease, Ingress, NetworkPolicy, PodDisruptionBudget,
// RuntimeClass, HorizontalPodAutoscaler, APIService and EndpointSlice. Several only need the fields Go's
// encoder writes even when unset.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { ensureObj, obj, objects, setIfEmpty, setIfNil } from '../json.ts';
import { defaultHorizontalPodAutoscaler } from './autoscaling.ts';
import { defaultCrd } from './crd.ts';

function defaultWebhooks(o: JsonObject, mutating: boolean): void {
  for (const hook of objects(o, 'webhooks')) {
    setIfNil(hook, 'failurePolicy', 'Fail');
    setIfNil(hook, 'matchPolicy', 'Equivalent');
    setIfNil(hook, 'namespaceSelector', {});
    setIfNil(hook, 'objectSelector', {});
    setIfNil(hook, 'timeoutSeconds', 10);
    if (mutating) setIfNil(hook, 'reinvocationPolicy', 'Never');
    for (const rule of objects(hook, 'rules')) setIfNil(rule, 'scope', '*');
    const service = obj(obj(hook, 'clientConfig'), 'service');
    if (service) setIfNil(service, 'port', 443);
  }
}

function defaultNetworkPolicy(o: JsonObject): void {
  const spec = ensureObj(o, 'spec');
  for (const dir of ['ingress', 'egress']) {
    for (const rule of objects(spec, dir)) for (const p of objects(rule, 'ports')) setIfEmpty(p, 'protocol', 'TCP');
  }
  const types = spec.policyTypes;
  if (!Array.isArray(types) || types.length === 0) {
    // Ingress is always implied; Egress only when egress rules are present.
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

const ZERO_PDB_STATUS = { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 };

/** Returns false when the kind is not handled here. */
export function defaultMiscKind(group: string, kind: string, o: JsonObject, op: 'create' | 'update'): boolean {
  switch (`${group}/${kind}`) {
    case 'admissionregistration.k8s.io/MutatingWebhookConfiguration':
      defaultWebhooks(o, true);
      return true;
    case 'admissionregistration.k8s.io/ValidatingWebhookConfiguration':
      defaultWebhooks(o, false);
      return true;
    case 'rbac.authorization.k8s.io/Role':
    case 'rbac.authorization.k8s.io/ClusterRole':
      // `rules` has no omitempty: an unset list is written as null.
      if (!('rules' in o)) o.rules = null;
      return true;
    case 'rbac.authorization.k8s.io/RoleBinding':
    case 'rbac.authorization.k8s.io/ClusterRoleBinding':
      return true;
    case 'scheduling.k8s.io/PriorityClass':
      setIfNil(o, 'value', 0);
      setIfNil(o, 'preemptionPolicy', 'PreemptLowerPriority');
      return true;
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      defaultCrd(o, op);
      return true;
    case 'coordination.k8s.io/Lease':
      ensureObj(o, 'spec');
      return true;
    case 'networking.k8s.io/Ingress':
      if (op === 'create') o.status = {};
      ensureObj(ensureObj(o, 'status'), 'loadBalancer');
      return true;
    case 'networking.k8s.io/NetworkPolicy':
      defaultNetworkPolicy(o);
      return true;
    case 'policy/PodDisruptionBudget': {
      if (op === 'create') o.status = {};
      const status = ensureObj(o, 'status');
      for (const [k, v] of Object.entries(ZERO_PDB_STATUS)) setIfNil(status, k, v);
      return true;
    }
    case 'autoscaling/HorizontalPodAutoscaler':
      defaultHorizontalPodAutoscaler(o, op);
      return true;
    case 'apiregistration.k8s.io/APIService': {
      // SetDefaults_ServiceReference; the strategy's PrepareForCreate empties the status.
      const service = obj(obj(o, 'spec'), 'service');
      if (service) setIfNil(service, 'port', 443);
      if (op === 'create') o.status = {};
      ensureObj(o, 'status');
      return true;
    }
    case 'discovery.k8s.io/EndpointSlice':
      // SetDefaults_EndpointPort (pkg/apis/discovery/v1/defaults.go): name "" and protocol TCP.
      for (const p of objects(o, 'ports')) {
        setIfNil(p, 'name', '');
        setIfNil(p, 'protocol', 'TCP');
      }
      return true;
    case 'node.k8s.io/RuntimeClass':
    case 'events.k8s.io/Event':
      return true;
    default:
      return false;
  }
}
