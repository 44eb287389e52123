// The key order of response bodies, byte for byte as kube-apiserver writes them. Built-in kinds
// are Go structs encoded by encoding/json: fields in declaration order, map keys sorted. The Go
// field lists below are from kubernetes/kubernetes:
//   staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (TypeMeta, ObjectMeta, Status, ...)
//   staging/src/k8s.io/api/core/v1/types.go (Pod, PodSpec, Container, ConfigMap, Service)
//   staging/src/k8s.io/api/apps/v1/types.go (Deployment, DeploymentSpec)
//   staging/src/k8s.io/api/rbac/v1/types.go (RoleBinding, Subject, RoleRef)
//   staging/src/k8s.io/api/admissionregistration/v1/types.go (ValidatingWebhookConfiguration, ...)
//   staging/src/k8s.io/api/networking/v1/types.go (NetworkPolicy, NetworkPolicySpec, ...)
//   staging/src/k8s.io/api/core/v1/types.go (PodStatus, ContainerStatus, NodeStatus, ...)
// Custom resources are unstructured (map[string]interface{}), so every level's keys are sorted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { call } from '../../../helpers/https.ts';
import { kubectl } from '../../../helpers/kubectl.ts';
import { runPython } from '../../../helpers/python.ts';
import { get } from '../../server/openapi/http.ts';
import { builtinFieldOrder } from '../../../../src/kube/builtins/field-order/field-order.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, probed level by level
type Obj = Record<string, any>;

const TYPE_META = ['kind', 'apiVersion'];
const OBJECT_META = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];
const MANAGED_FIELDS_ENTRY = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
const POD = [...TYPE_META, 'metadata', 'spec', 'status'];
const POD_SPEC = [
  'volumes',
  'initContainers',
  'containers',
  'ephemeralContainers',
  'restartPolicy',
  'terminationGracePeriodSeconds',
  'activeDeadlineSeconds',
  'dnsPolicy',
  'nodeSelector',
  'serviceAccountName',
  'serviceAccount',
  'automountServiceAccountToken',
  'nodeName',
  'hostNetwork',
  'hostPID',
  'hostIPC',
  'shareProcessNamespace',
  'securityContext',
  'imagePullSecrets',
  'hostname',
  'subdomain',
  'affinity',
  'schedulerName',
  'tolerations',
  'hostAliases',
  'priorityClassName',
  'priority',
  'dnsConfig',
  'readinessGates',
  'runtimeClassName',
  'enableServiceLinks',
  'preemptionPolicy',
  'overhead',
  'topologySpreadConstraints',
  'setHostnameAsFQDN',
  'os',
  'hostUsers',
  'schedulingGates',
  'resourceClaims',
  'resources',
];
const CONTAINER = [
  'name',
  'image',
  'command',
  'args',
  'workingDir',
  'ports',
  'envFrom',
  'env',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'restartPolicyRules',
  'volumeMounts',
  'volumeDevices',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'imagePullPolicy',
  'securityContext',
  'stdin',
  'stdinOnce',
  'tty',
];
const CONTAINER_PORT = ['name', 'hostPort', 'containerPort', 'protocol', 'hostIP'];
const CONFIG_MAP = [...TYPE_META, 'metadata', 'immutable', 'data', 'binaryData'];
const DEPLOYMENT = [...TYPE_META, 'metadata', 'spec', 'status'];
const DEPLOYMENT_SPEC = [
  'replicas',
  'selector',
  'template',
  'strategy',
  'minReadySeconds',
  'revisionHistoryLimit',
  'paused',
  'progressDeadlineSeconds',
];
const DEPLOYMENT_STRATEGY = ['type', 'rollingUpdate'];

/** The object's keys are exactly the Go fields it has, in the Go struct's order. */
function assertGoOrder(obj: Obj, goFields: string[], what: string): void {
  const keys = Object.keys(obj);
  assert.deepEqual(
    keys.filter((k) => !goFields.includes(k)),
    [],
    `${what}: fields not in the Go struct`,
  );
  assert.deepEqual(
    keys,
    goFields.filter((k) => k in obj),
    `${what}: key order`,
  );
}

function assertSorted(obj: Obj, what: string): void {
  const keys = Object.keys(obj);
  assert.deepEqual(keys, [...keys].sort(), `${what}: map keys sorted`);
}

function assertSortedDeep(v: unknown, path: string): void {
  if (Array.isArray(v)) v.forEach((item, i) => assertSortedDeep(item, `${path}[${i}]`));
  else if (v && typeof v === 'object') {
    assertSorted(v as Obj, path);
    for (const [k, child] of Object.entries(v)) assertSortedDeep(child, `${path}.${k}`);
  }
}

async function getRaw(cp: TestCluster, path: string): Promise<Obj> {
  const r = await get(cp, path, { Accept: 'application/json' });
  assert.equal(r.code, 200, r.body.toString());
  return JSON.parse(r.body.toString()) as Obj;
}

test('fields the Go struct does not have follow the known ones in their written order', () => {
  const order = builtinFieldOrder('', 'v1', 'Pod');
  const pod = order({
    status: { zeta: 1, phase: 'Running', alpha: 2, podIP: '10.0.0.1' },
    spec: { containers: [] },
    metadata: { name: 'p' },
    apiVersion: 'v1',
    kind: 'Pod',
  });
  assert.deepEqual(Object.keys(pod), POD);
  assert.deepEqual(Object.keys(pod.status as Obj), ['phase', 'podIP', 'zeta', 'alpha']);
  // TypeMeta and ObjectMeta first, then rbac/v1 Role's rules; map keys sorted.
  const role = builtinFieldOrder(
    'rbac.authorization.k8s.io',
    'v1',
    'Role',
  )({
    rules: [],
    metadata: { labels: { b: '1', a: '1' }, name: 'r' },
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
  });
  assert.deepEqual(Object.keys(role), ['kind', 'apiVersion', 'metadata', 'rules']);
  assert.deepEqual(Object.keys((role.metadata as Obj).labels as Obj), ['a', 'b']);
});

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 0 });
});
after(async () => {
  await cp?.stop();
});

const NS = 'field-order';

describe('key order of response bodies', () => {
  before(async () => {
    const r = await kubectl(cp.kubeconfigPath, ['create', 'namespace', NS]);
    assert.equal(r.code, 0, r.stderr);
  });

  test('a Status error is kind, apiVersion, metadata, status, message, reason, details, code (raw and Python create_from_yaml)', async () => {
    const manifest = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\n  namespace: ${NS}\ndata:\n  k: v\n`;
    const created = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: manifest });
    assert.equal(created.code, 0, created.stderr);
    // metav1.Status and StatusDetails in their Go field order.
    const expected =
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"dup\\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"configmaps"},"code":409}';

    const python = await runPython(
      cp.kubeconfigPath,
      `
import json, sys, tempfile
from kubernetes import client, config, utils
config.load_kube_config(sys.argv[1])
api = client.ApiClient()
with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
    f.write(${JSON.stringify(manifest)})
try:
    utils.create_from_yaml(api, f.name)
    print(json.dumps({"raised": False}))
except utils.FailToCreateError as e:
    body = e.api_exceptions[0].body
    if isinstance(body, bytes):
        body = body.decode()
    print(json.dumps({"raised": True, "body": body, "text": str(e)}))
`,
    );
    assert.equal(python.code, 0, python.stderr);
    const out = python.json() as { raised: boolean; body: string; text: string };
    assert.equal(out.raised, true);
    assert.equal(out.body, expected);
    assert.equal(out.text, `Error from server (Conflict): ${expected}`);
  });

  test('a duplicate create over raw HTTP answers the same bytes', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dup' } });
    const r = await postRaw(cp, `/api/v1/namespaces/${NS}/configmaps`, body);
    assert.equal(r.code, 409);
    assert.equal(
      r.body,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"dup\\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"configmaps"},"code":409}',
    );
  });

  test('a Pod is written in the Go order of Pod, ObjectMeta, PodSpec and Container, map keys sorted', async () => {
    // Fields given in reverse order, so only the server's serializer can put them in order.
    const body = JSON.stringify({
      spec: {
        nodeSelector: { zone: 'a', disk: 'ssd' },
        containers: [
          {
            ports: [{ protocol: 'TCP', containerPort: 80, name: 'http' }],
            resources: { limits: { memory: '64Mi', cpu: '100m' } },
            image: 'nginx',
            name: 'web',
          },
        ],
      },
      metadata: { annotations: { z: '1', a: '2' }, labels: { zeta: '1', alpha: '2' }, name: 'ordered' },
      apiVersion: 'v1',
      kind: 'Pod',
    });
    const created = await postRaw(cp, `/api/v1/namespaces/${NS}/pods`, body);
    assert.equal(created.code, 201, created.body);
    for (const [what, pod] of [
      ['create response', JSON.parse(created.body) as Obj],
      ['GET', await getRaw(cp, `/api/v1/namespaces/${NS}/pods/ordered`)],
      ['LIST item', ((await getRaw(cp, `/api/v1/namespaces/${NS}/pods`)).items as Obj[])[0]],
    ] as const) {
      assertGoOrder(pod, POD, `${what} Pod`);
      assertGoOrder(pod.metadata, OBJECT_META, `${what} ObjectMeta`);
      assertGoOrder(pod.metadata.managedFields[0], MANAGED_FIELDS_ENTRY, `${what} ManagedFieldsEntry`);
      assertGoOrder(pod.spec, POD_SPEC, `${what} PodSpec`);
      const container = pod.spec.containers[0] as Obj;
      assertGoOrder(container, CONTAINER, `${what} Container`);
      assertGoOrder(container.ports[0], CONTAINER_PORT, `${what} ContainerPort`);
      assertSorted(pod.metadata.labels, `${what} labels`);
      assertSorted(pod.metadata.annotations, `${what} annotations`);
      assertSorted(pod.spec.nodeSelector, `${what} nodeSelector`);
      assertSorted(container.resources.limits, `${what} resources.limits`);
    }
  });

  test('a ConfigMap and a Deployment created by kubectl are read back in Go order', async () => {
    const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
  labels: {tier: front, app: web}
spec:
  template:
    spec:
      containers:
      - {name: web, image: nginx}
    metadata:
      labels: {app: web}
  selector:
    matchLabels: {app: web}
  replicas: 0
---
kind: ConfigMap
apiVersion: v1
data: {zz: '1', aa: '2'}
metadata:
  name: settings
  namespace: ${NS}
immutable: false
`;
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: manifest, version: '1.33' });
    assert.equal(r.code, 0, r.stderr);
    const cm = await getRaw(cp, `/api/v1/namespaces/${NS}/configmaps/settings`);
    assertGoOrder(cm, CONFIG_MAP, 'ConfigMap');
    assertGoOrder(cm.metadata, OBJECT_META, 'ConfigMap ObjectMeta');
    assertSorted(cm.data, 'ConfigMap data');

    const deploy = await getRaw(cp, `/apis/apps/v1/namespaces/${NS}/deployments/web`);
    assertGoOrder(deploy, DEPLOYMENT, 'Deployment');
    assertGoOrder(deploy.metadata, OBJECT_META, 'Deployment ObjectMeta');
    assertSorted(deploy.metadata.labels, 'Deployment labels');
    assertGoOrder(deploy.spec, DEPLOYMENT_SPEC, 'DeploymentSpec');
    assertGoOrder(deploy.spec.strategy, DEPLOYMENT_STRATEGY, 'DeploymentStrategy');
    assertGoOrder(deploy.spec.template, ['metadata', 'spec'], 'PodTemplateSpec');
    assertGoOrder(deploy.spec.template.spec, POD_SPEC, 'template PodSpec');
    assertGoOrder(deploy.spec.template.spec.containers[0], CONTAINER, 'template Container');
  });

  test('an Event and a Lease are written in their Go order (core/v1 and coordination/v1 types.go)', async () => {
    const lease = await postRaw(
      cp,
      `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
      JSON.stringify({
        spec: {
          leaseTransitions: 1,
          renewTime: '2026-01-01T00:00:00.000000Z',
          leaseDurationSeconds: 15,
          holderIdentity: 'me',
        },
        metadata: { name: 'leader' },
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
      }),
    );
    assert.equal(lease.code, 201, lease.body);
    const l = JSON.parse(lease.body) as Obj;
    assertGoOrder(l, [...TYPE_META, 'metadata', 'spec'], 'Lease');
    assertGoOrder(
      l.spec,
      [
        'holderIdentity',
        'leaseDurationSeconds',
        'acquireTime',
        'renewTime',
        'leaseTransitions',
        'strategy',
        'preferredHolder',
      ],
      'LeaseSpec',
    );
    const event = await postRaw(
      cp,
      `/api/v1/namespaces/${NS}/events`,
      JSON.stringify({
        type: 'Normal',
        count: 1,
        lastTimestamp: '2026-01-01T00:00:00Z',
        firstTimestamp: '2026-01-01T00:00:00Z',
        source: { host: 'n1', component: 'test' },
        message: 'hello',
        reason: 'Testing',
        involvedObject: { name: 'ordered', namespace: NS, kind: 'Pod', apiVersion: 'v1' },
        metadata: { name: 'ordered.1' },
        apiVersion: 'v1',
        kind: 'Event',
      }),
    );
    assert.equal(event.code, 201, event.body);
    const e = JSON.parse(event.body) as Obj;
    const EVENT = [
      ...TYPE_META,
      'metadata',
      'involvedObject',
      'reason',
      'message',
      'source',
      'firstTimestamp',
      'lastTimestamp',
      'count',
      'type',
      'eventTime',
      'series',
      'action',
      'related',
      'reportingComponent',
      'reportingInstance',
    ];
    assertGoOrder(e, EVENT, 'Event');
    assertGoOrder(
      e.involvedObject,
      ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'],
      'ObjectReference',
    );
    assertGoOrder(e.source, ['component', 'host'], 'EventSource');
  });

  test('RoleBinding, ValidatingWebhookConfiguration and NetworkPolicy created by kubectl are served in Go order, byte for byte', async () => {
    // Every field kube would default is given, so the expected bytes are only the reordered input.
    const manifest = `roleRef: {name: reader, kind: Role, apiGroup: rbac.authorization.k8s.io}
subjects:
- {name: jane, apiGroup: rbac.authorization.k8s.io, kind: User}
metadata: {namespace: ${NS}, name: read}
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
---
webhooks:
- matchConditions: [{expression: 'true', name: always}]
  admissionReviewVersions: [v1]
  timeoutSeconds: 5
  sideEffects: None
  objectSelector: {matchLabels: {b: '2', a: '1'}}
  namespaceSelector: {matchExpressions: [{values: [web], operator: In, key: tier}]}
  matchPolicy: Exact
  failurePolicy: Ignore
  rules:
  - {scope: Namespaced, resources: [pods], apiVersions: [v1], apiGroups: [''], operations: [CREATE]}
  clientConfig:
    service: {port: 8443, path: /validate, name: guard, namespace: ${NS}}
  name: guard.example.com
metadata: {name: field-order-guard}
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
---
spec:
  policyTypes: [Ingress, Egress]
  egress:
  - to: [{namespaceSelector: {}}]
    ports: [{port: 53, protocol: UDP}]
  ingress:
  - from:
    - ipBlock: {except: [10.1.0.0/16], cidr: 10.0.0.0/8}
    - namespaceSelector: {matchLabels: {team: a}}
      podSelector: {matchLabels: {app: web}}
    ports: [{endPort: 5440, port: 5432, protocol: TCP}]
  podSelector: {matchLabels: {app: db}}
metadata: {namespace: ${NS}, name: db}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
`;
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: manifest, version: '1.33' });
    assert.equal(r.code, 0, r.stderr);
    // ObjectMeta's own order is asserted above; here it is copied so the rest compares byte for byte.
    const withMeta = async (path: string, head: string, tail: string): Promise<void> => {
      const r = await get(cp, path, { Accept: 'application/json' });
      assert.equal(r.code, 200, r.body.toString());
      const body = r.body.toString();
      assert.equal(body, `${head},"metadata":${JSON.stringify((JSON.parse(body) as Obj).metadata)},${tail}`);
    };
    await withMeta(
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings/read`,
      '{"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1"',
      '"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"jane"}],' +
        '"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"}}',
    );
    await withMeta(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/field-order-guard',
      '{"kind":"ValidatingWebhookConfiguration","apiVersion":"admissionregistration.k8s.io/v1"',
      '"webhooks":[{"name":"guard.example.com",' +
        `"clientConfig":{"service":{"namespace":"${NS}","name":"guard","path":"/validate","port":8443}},` +
        '"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"Namespaced"}],' +
        '"failurePolicy":"Ignore","matchPolicy":"Exact",' +
        '"namespaceSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["web"]}]},' +
        '"objectSelector":{"matchLabels":{"a":"1","b":"2"}},"sideEffects":"None","timeoutSeconds":5,' +
        '"admissionReviewVersions":["v1"],"matchConditions":[{"name":"always","expression":"true"}]}]}',
    );
    await withMeta(
      `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies/db`,
      '{"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1"',
      '"spec":{"podSelector":{"matchLabels":{"app":"db"}},' +
        '"ingress":[{"ports":[{"protocol":"TCP","port":5432,"endPort":5440}],' +
        '"from":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}},' +
        '{"podSelector":{"matchLabels":{"app":"web"}},"namespaceSelector":{"matchLabels":{"team":"a"}}}]}],' +
        '"egress":[{"ports":[{"protocol":"UDP","port":53}],"to":[{"namespaceSelector":{}}]}],' +
        '"policyTypes":["Ingress","Egress"]}}',
    );
  });

  test('Pod and Node status written through /status are answered in Go order, byte for byte', async () => {
    const pod = await sendRaw(
      cp,
      'POST',
      `/api/v1/namespaces/${NS}/pods`,
      JSON.stringify({
        spec: { schedulingGates: [{ name: 'held' }], containers: [{ image: 'nginx', name: 'web' }] },
        metadata: { name: 'with-status' },
        apiVersion: 'v1',
        kind: 'Pod',
      }),
    );
    assert.equal(pod.code, 201, pod.body);
    // Written with every level's keys reversed, as a client with no notion of order might.
    const podStatus =
      '{"qosClass":"BestEffort","containerStatuses":[{"started":true,"containerID":"sim://2","imageID":"sim://nginx",' +
      '"image":"nginx:latest","restartCount":1,"ready":true,' +
      '"lastState":{"terminated":{"containerID":"sim://1","finishedAt":"2026-01-01T00:00:01Z","startedAt":"2026-01-01T00:00:00Z","reason":"Error","exitCode":1}},' +
      '"state":{"running":{"startedAt":"2026-01-01T00:00:01Z"}},"name":"web"}],' +
      '"startTime":"2026-01-01T00:00:00Z","podIPs":[{"ip":"10.244.0.5"}],"podIP":"10.244.0.5",' +
      '"hostIPs":[{"ip":"192.168.0.2"}],"hostIP":"192.168.0.2",' +
      '"conditions":[{"lastTransitionTime":"2026-01-01T00:00:02Z","status":"True","type":"Ready"}],"phase":"Running"}';
    const podStatusInGoOrder =
      '"status":{"phase":"Running",' +
      '"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:02Z"}],' +
      '"hostIP":"192.168.0.2","hostIPs":[{"ip":"192.168.0.2"}],"podIP":"10.244.0.5","podIPs":[{"ip":"10.244.0.5"}],' +
      '"startTime":"2026-01-01T00:00:00Z",' +
      '"containerStatuses":[{"name":"web","state":{"running":{"startedAt":"2026-01-01T00:00:01Z"}},' +
      '"lastState":{"terminated":{"exitCode":1,"reason":"Error","startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:01Z","containerID":"sim://1"}},' +
      '"ready":true,"restartCount":1,"image":"nginx:latest","imageID":"sim://nginx","containerID":"sim://2","started":true}],' +
      '"qosClass":"BestEffort"}}';
    const podPath = `/api/v1/namespaces/${NS}/pods/with-status`;
    const written = JSON.parse(pod.body) as Obj;
    const putPod = await sendRaw(
      cp,
      'PUT',
      `${podPath}/status`,
      `{"kind":"Pod","apiVersion":"v1","metadata":${JSON.stringify(written.metadata)},"spec":${JSON.stringify(written.spec)},"status":${podStatus}}`,
    );
    assert.equal(putPod.code, 200, putPod.body);
    assert.ok(putPod.body.endsWith(`,${podStatusInGoOrder}`), putPod.body);

    const node = await sendRaw(
      cp,
      'POST',
      '/api/v1/nodes',
      JSON.stringify({
        spec: { podCIDRs: ['10.244.1.0/24'], podCIDR: '10.244.1.0/24' },
        metadata: { name: 'field-order-node' },
        apiVersion: 'v1',
        kind: 'Node',
      }),
    );
    assert.equal(node.code, 201, node.body);
    const nodeStatus =
      '{"nodeInfo":{"architecture":"amd64","operatingSystem":"linux","kubeProxyVersion":"","kubeletVersion":"v1.33.0",' +
      '"containerRuntimeVersion":"sim://1","osImage":"Debian","kernelVersion":"6.1.0","bootID":"b","systemUUID":"s","machineID":"m"},' +
      '"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},' +
      '"addresses":[{"address":"192.168.0.2","type":"InternalIP"}],' +
      '"conditions":[{"message":"kubelet is posting ready status","reason":"KubeletReady","lastTransitionTime":"2026-01-01T00:00:00Z",' +
      '"lastHeartbeatTime":"2026-01-01T00:00:00Z","status":"True","type":"Ready"}],' +
      '"allocatable":{"pods":"110","memory":"4Gi","cpu":"2"},"capacity":{"pods":"110","memory":"4Gi","cpu":"2"}}';
    const nodeStatusInGoOrder =
      '"status":{"capacity":{"cpu":"2","memory":"4Gi","pods":"110"},"allocatable":{"cpu":"2","memory":"4Gi","pods":"110"},' +
      '"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z",' +
      '"reason":"KubeletReady","message":"kubelet is posting ready status"}],' +
      '"addresses":[{"type":"InternalIP","address":"192.168.0.2"}],' +
      '"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},' +
      '"nodeInfo":{"machineID":"m","systemUUID":"s","bootID":"b","kernelVersion":"6.1.0","osImage":"Debian",' +
      '"containerRuntimeVersion":"sim://1","kubeletVersion":"v1.33.0","kubeProxyVersion":"","operatingSystem":"linux","architecture":"amd64"}}}';
    const writtenNode = JSON.parse(node.body) as Obj;
    const putNode = await sendRaw(
      cp,
      'PUT',
      '/api/v1/nodes/field-order-node/status',
      `{"kind":"Node","apiVersion":"v1","metadata":${JSON.stringify(writtenNode.metadata)},"spec":${JSON.stringify(writtenNode.spec)},"status":${nodeStatus}}`,
    );
    assert.equal(putNode.code, 200, putNode.body);
    assert.ok(putNode.body.endsWith(`,${nodeStatusInGoOrder}`), putNode.body);
  });

  test('views are answered in the Go order of their own version: autoscaling/v1 HPAs and events.k8s.io/v1 Events', async () => {
    // autoscaling/v1/types.go HorizontalPodAutoscaler{Spec,Status}, CrossVersionObjectReference.
    const hpa = await postRaw(
      cp,
      `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`,
      JSON.stringify({
        spec: {
          targetCPUUtilizationPercentage: 50,
          maxReplicas: 3,
          minReplicas: 1,
          scaleTargetRef: { apiVersion: 'apps/v1', name: 'web', kind: 'Deployment' },
        },
        metadata: { name: 'web' },
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
      }),
    );
    assert.equal(hpa.code, 201, hpa.body);
    for (const [what, h] of [
      ['create response', JSON.parse(hpa.body) as Obj],
      ['GET', await getRaw(cp, `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers/web`)],
    ] as const) {
      assertGoOrder(h, [...TYPE_META, 'metadata', 'spec', 'status'], `${what} HPA v1`);
      assertGoOrder(
        h.spec,
        ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'targetCPUUtilizationPercentage'],
        `${what} HPA v1 spec`,
      );
      assertGoOrder(h.spec.scaleTargetRef, ['kind', 'name', 'apiVersion'], `${what} scaleTargetRef`);
    }
    // The stored (autoscaling/v2) object is in v2's order: metrics[].resource.target.
    const v2 = await getRaw(cp, `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/web`);
    assertGoOrder(v2.spec, ['scaleTargetRef', 'minReplicas', 'maxReplicas', 'metrics', 'behavior'], 'HPA v2 spec');
    assertGoOrder(v2.spec.metrics[0].resource, ['name', 'target'], 'ResourceMetricSource');
    assertGoOrder(
      v2.spec.metrics[0].resource.target,
      ['type', 'value', 'averageValue', 'averageUtilization'],
      'MetricTarget',
    );

    // events/v1/types.go Event: the same object as core/v1's, in another struct's order.
    const event = await postRaw(
      cp,
      `/apis/events.k8s.io/v1/namespaces/${NS}/events`,
      JSON.stringify({
        type: 'Normal',
        note: 'hello',
        regarding: { name: 'web', namespace: NS, kind: 'Pod', apiVersion: 'v1' },
        reason: 'Testing',
        action: 'Testing',
        reportingInstance: 'test-1',
        reportingController: 'example.com/test',
        eventTime: '2026-01-01T00:00:00.000000Z',
        metadata: { name: 'web.1' },
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
      }),
    );
    assert.equal(event.code, 201, event.body);
    const EVENT_V1 = [
      ...TYPE_META,
      'metadata',
      'eventTime',
      'series',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
      'regarding',
      'related',
      'note',
      'type',
      'deprecatedSource',
      'deprecatedFirstTimestamp',
      'deprecatedLastTimestamp',
      'deprecatedCount',
    ];
    for (const [what, e] of [
      ['create response', JSON.parse(event.body) as Obj],
      ['GET', await getRaw(cp, `/apis/events.k8s.io/v1/namespaces/${NS}/events/web.1`)],
    ] as const) {
      assertGoOrder(e, EVENT_V1, `${what} events.k8s.io/v1 Event`);
      assertGoOrder(
        e.regarding,
        ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'],
        `${what} regarding`,
      );
    }
  });

  test('an answered review is in its Go order too (authorization/v1 SelfSubjectAccessReview)', async () => {
    // authorization/v1/types.go: SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    // ResourceAttributes, SubjectAccessReviewStatus.
    const r = await postRaw(
      cp,
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      JSON.stringify({
        spec: { resourceAttributes: { name: 'x', resource: 'pods', verb: 'get', namespace: NS } },
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
      }),
    );
    assert.equal(r.code, 201, r.body);
    const review = JSON.parse(r.body) as Obj;
    assertGoOrder(review, [...TYPE_META, 'metadata', 'spec', 'status'], 'SelfSubjectAccessReview');
    assertGoOrder(
      review.spec.resourceAttributes,
      ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name', 'fieldSelector', 'labelSelector'],
      'ResourceAttributes',
    );
    assert.deepEqual(Object.keys(review.spec.resourceAttributes), ['namespace', 'verb', 'resource', 'name']);
    assertGoOrder(review.status, ['allowed', 'denied', 'reason', 'evaluationError'], 'SubjectAccessReviewStatus');
  });

  test('a custom resource has every level of keys sorted, as encoding/json writes a map', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.order.example.com
spec:
  group: order.example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;
    const r = await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], { input: crd });
    assert.equal(r.code, 0, r.stderr);
    await kubectl(cp.kubeconfigPath, [
      'wait',
      '--for=condition=Established',
      'crd/widgets.order.example.com',
      '--timeout=30s',
    ]);
    const body = JSON.stringify({
      spec: { zone: 'b', nested: { y: 1, b: [{ z: 1, a: 2 }] } },
      metadata: { labels: { z: '1', a: '2' }, name: 'w1' },
      kind: 'Widget',
      apiVersion: 'order.example.com/v1',
    });
    const created = await postRaw(cp, `/apis/order.example.com/v1/namespaces/${NS}/widgets`, body);
    assert.equal(created.code, 201, created.body);
    const fetched = await getRaw(cp, `/apis/order.example.com/v1/namespaces/${NS}/widgets/w1`);
    for (const [what, obj] of [
      ['create response', JSON.parse(created.body) as Obj],
      ['GET', fetched],
    ] as const) {
      assert.deepEqual(Object.keys(obj), ['apiVersion', 'kind', 'metadata', 'spec'], what);
      assertSortedDeep(obj, what);
    }
  });
});

function postRaw(cp: TestCluster, path: string, body: string): Promise<{ code: number; body: string }> {
  return sendRaw(cp, 'POST', path, body);
}

/** The exact bytes a request gets back (the order is what is tested, so the text, not parsed JSON). */
async function sendRaw(
  cp: TestCluster,
  method: string,
  path: string,
  body: string,
): Promise<{ code: number; body: string }> {
  const r = await call(cp, method, path, Buffer.from(body));
  return { code: r.code, body: r.text };
}
