// The Go field order of built-in kinds, byte for byte. Each object below is written with its keys
// reversed at every level, so only the reordering can produce the expected text. The expected
// texts follow the struct declarations in kubernetes/api (k8s.io/api):
//   rbac/v1/types.go                  RoleBinding, Subject, RoleRef
//   admissionregistration/v1/types.go ValidatingWebhookConfiguration, ValidatingWebhook,
//                                     WebhookClientConfig, ServiceReference, RuleWithOperations
//                                     (Operations, then the embedded Rule's fields), MatchCondition
//   networking/v1/types.go            NetworkPolicy, NetworkPolicySpec, NetworkPolicyIngressRule,
//                                     NetworkPolicyEgressRule, NetworkPolicyPort, NetworkPolicyPeer, IPBlock
//   core/v1/types.go                  PodStatus, PodCondition, ContainerStatus, ContainerState*,
//                                     NodeStatus, NodeCondition, NodeAddress, NodeSystemInfo,
//                                     NodeDaemonEndpoints (its DaemonEndpoint's JSON name is "Port")
// and in kubernetes/apimachinery pkg/apis/meta/v1/types.go (TypeMeta, ObjectMeta, LabelSelector).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonValue } from '../../../../src/apimachinery/meta/index.ts';
import {
  builtinFieldOrder,
  goStructKey,
  hasGoFieldOrder,
} from '../../../../src/kube/builtins/field-order/field-order.ts';
import { builtinResourceDefs } from '../../../../src/kube/registry/builtins.ts';

/** The object with its keys reversed at every level (map keys too). */
function reversed(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(reversed);
  if (v === null || typeof v !== 'object') return v;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(v).reverse()) out[key] = reversed(value as JsonValue);
  return out;
}

function ordered(group: string, version: string, kind: string, expected: string): string {
  const obj = reversed(JSON.parse(expected) as JsonValue) as JsonObject;
  assert.notEqual(JSON.stringify(obj), expected, 'the input is out of order');
  return JSON.stringify(builtinFieldOrder(group, version, kind)(obj));
}

test('every built-in kind the server serves has its Go field order', () => {
  const missing = builtinResourceDefs()
    .filter((d) => !hasGoFieldOrder(d.group, d.version, d.kind))
    .map((d) => goStructKey(d.group, d.version, d.kind));
  assert.deepEqual(missing, []);
});

test('RoleBinding: subjects are kind, apiGroup, name, namespace; roleRef is apiGroup, kind, name', () => {
  const expected =
    '{"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",' +
    '"metadata":{"name":"read","namespace":"team","labels":{"a":"1","b":"2"}},' +
    '"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"jane"},' +
    '{"kind":"ServiceAccount","name":"bot","namespace":"team"}],' +
    '"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"}}';
  // Map keys are sorted whatever order they came in; the reversed labels are b, a.
  assert.equal(ordered('rbac.authorization.k8s.io', 'v1', 'RoleBinding', expected), expected);
});

test('ValidatingWebhookConfiguration: webhooks, client config, rules with the embedded Rule inlined', () => {
  const expected =
    '{"kind":"ValidatingWebhookConfiguration","apiVersion":"admissionregistration.k8s.io/v1",' +
    '"metadata":{"name":"guard"},' +
    '"webhooks":[{"name":"guard.example.com",' +
    '"clientConfig":{"service":{"namespace":"system","name":"guard","path":"/validate","port":443},"caBundle":"Cg=="},' +
    '"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"Namespaced"}],' +
    '"failurePolicy":"Fail","matchPolicy":"Equivalent",' +
    '"namespaceSelector":{"matchLabels":{"env":"prod"},"matchExpressions":[{"key":"tier","operator":"In","values":["web"]}]},' +
    '"objectSelector":{},"sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1"],' +
    '"matchConditions":[{"name":"not-system","expression":"true"}]}]}';
  assert.equal(ordered('admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', expected), expected);
});

test('NetworkPolicy: podSelector, ingress, egress, policyTypes; peers and ports in Go order', () => {
  const expected =
    '{"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1","metadata":{"name":"db","namespace":"team"},' +
    '"spec":{"podSelector":{"matchLabels":{"app":"db"}},' +
    '"ingress":[{"ports":[{"protocol":"TCP","port":5432,"endPort":5440}],' +
    '"from":[{"podSelector":{"matchLabels":{"app":"web"}},"namespaceSelector":{"matchLabels":{"team":"a"}}},' +
    '{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}]}],' +
    '"egress":[{"ports":[{"protocol":"UDP","port":53}],"to":[{"namespaceSelector":{}}]}],' +
    '"policyTypes":["Ingress","Egress"]}}';
  assert.equal(ordered('networking.k8s.io', 'v1', 'NetworkPolicy', expected), expected);
});

test('Pod status: conditions, IPs, start time and container statuses with their states in Go order', () => {
  const expected =
    '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"team"},' +
    '"spec":{"containers":[{"name":"web","image":"nginx"}]},' +
    '"status":{"observedGeneration":1,"phase":"Running",' +
    '"conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:02Z"},' +
    '{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00Z"}],' +
    '"hostIP":"192.168.0.2","hostIPs":[{"ip":"192.168.0.2"}],"podIP":"10.244.0.5","podIPs":[{"ip":"10.244.0.5"}],' +
    '"startTime":"2026-01-01T00:00:00Z",' +
    '"containerStatuses":[{"name":"web",' +
    '"state":{"running":{"startedAt":"2026-01-01T00:00:01Z"}},' +
    '"lastState":{"terminated":{"exitCode":1,"reason":"Error","startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:01Z","containerID":"sim://1"}},' +
    '"ready":true,"restartCount":1,"image":"nginx:latest","imageID":"sim://nginx","containerID":"sim://2","started":true}],' +
    '"qosClass":"BestEffort"}}';
  assert.equal(ordered('', 'v1', 'Pod', expected), expected);
});

test('Node status: capacity, allocatable, conditions, addresses, daemon endpoints, node info in Go order', () => {
  const expected =
    '{"kind":"Node","apiVersion":"v1","metadata":{"name":"worker-1","labels":{"kubernetes.io/hostname":"worker-1","kubernetes.io/os":"linux"}},' +
    '"spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24"]},' +
    '"status":{"capacity":{"cpu":"2","memory":"4Gi","pods":"110"},"allocatable":{"cpu":"2","memory":"4Gi","pods":"110"},' +
    '"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"KubeletReady","message":"kubelet is posting ready status"}],' +
    '"addresses":[{"type":"InternalIP","address":"192.168.0.2"},{"type":"Hostname","address":"worker-1"}],' +
    '"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},' +
    '"nodeInfo":{"machineID":"m","systemUUID":"s","bootID":"b","kernelVersion":"6.1.0","osImage":"Debian","containerRuntimeVersion":"sim://1","kubeletVersion":"v1.33.0","kubeProxyVersion":"","operatingSystem":"linux","architecture":"amd64"}}}';
  assert.equal(ordered('', 'v1', 'Node', expected), expected);
});

test('unknown fields of a ClusterRole and of its rules follow the known ones, as written', () => {
  const order = builtinFieldOrder('rbac.authorization.k8s.io', 'v1', 'ClusterRole');
  const role = order({
    zeta: 1,
    rules: [{ extra: true, resources: ['pods'], verbs: ['get'] }],
    alpha: 2,
    metadata: { name: 'r' },
    kind: 'ClusterRole',
  });
  assert.equal(
    JSON.stringify(role),
    '{"kind":"ClusterRole","metadata":{"name":"r"},"rules":[{"verbs":["get"],"resources":["pods"],"extra":true}],"zeta":1,"alpha":2}',
  );
});
