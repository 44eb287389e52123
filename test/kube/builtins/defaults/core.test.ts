import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function defaulted(group: string, kind: string, o: JsonObject, op: 'create' | 'update' = 'create'): JsonObject {
  applyDefaults(group, kind, o, op, { now: () => new Date('2024-05-01T10:00:00Z') });
  return o;
}

describe('Service defaults', () => {
  const cases: { name: string; spec: JsonObject; want: JsonObject }[] = [
    {
      name: 'ClusterIP',
      spec: { selector: { app: 'a' }, ports: [{ port: 80 }] },
      want: {
        selector: { app: 'a' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
        sessionAffinity: 'None',
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    },
    {
      name: 'requested clusterIP fills clusterIPs',
      spec: { clusterIP: '10.96.0.10', ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }] },
      want: {
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10'],
        ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }],
        sessionAffinity: 'None',
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    },
    {
      name: 'headless with selector',
      spec: { clusterIP: 'None', selector: { app: 'a' }, ports: [{ port: 80, targetPort: 0 }] },
      want: {
        clusterIP: 'None',
        clusterIPs: ['None'],
        selector: { app: 'a' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
        sessionAffinity: 'None',
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    },
    {
      name: 'headless without selector is RequireDualStack',
      spec: { clusterIP: 'None' },
      want: {
        clusterIP: 'None',
        clusterIPs: ['None'],
        sessionAffinity: 'None',
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'RequireDualStack',
        ipFamilies: ['IPv4', 'IPv6'],
      },
    },
    {
      name: 'LoadBalancer',
      spec: { type: 'LoadBalancer', ports: [{ port: 443, targetPort: 8443 }] },
      want: {
        type: 'LoadBalancer',
        ports: [{ port: 443, protocol: 'TCP', targetPort: 8443 }],
        sessionAffinity: 'None',
        externalTrafficPolicy: 'Cluster',
        internalTrafficPolicy: 'Cluster',
        allocateLoadBalancerNodePorts: true,
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    },
    {
      name: 'ExternalName',
      spec: { type: 'ExternalName', externalName: 'example.com' },
      want: { type: 'ExternalName', externalName: 'example.com', sessionAffinity: 'None' },
    },
    {
      name: 'ClientIP affinity',
      spec: { sessionAffinity: 'ClientIP', ports: [{ port: 80 }] },
      want: {
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
        type: 'ClusterIP',
        internalTrafficPolicy: 'Cluster',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const svc = defaulted('', 'Service', {
        spec: c.spec,
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      });
      assert.deepStrictEqual(svc.spec, c.want);
      assert.deepStrictEqual(svc.status, { loadBalancer: {} });
    });
  }

  it('drops sessionAffinityConfig under None and stamps ipMode on LoadBalancer status (update)', () => {
    const svc = defaulted(
      '',
      'Service',
      {
        spec: { type: 'LoadBalancer', sessionAffinityConfig: { clientIP: {} } },
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      },
      'update',
    );
    assert.equal((svc.spec as JsonObject).sessionAffinityConfig, undefined);
    assert.deepStrictEqual(svc.status, { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP' }] } });
  });
});

describe('core kind defaults', () => {
  it('Namespace: name label, kubernetes finalizer, Active', () => {
    const ns = defaulted('', 'Namespace', {
      metadata: { name: 'team-a', labels: { x: 'y' } },
      spec: { finalizers: ['example.com/f'] },
      status: { phase: 'Terminating' },
    });
    assert.deepStrictEqual(ns, {
      metadata: { name: 'team-a', labels: { x: 'y', 'kubernetes.io/metadata.name': 'team-a' } },
      spec: { finalizers: ['example.com/f', 'kubernetes'] },
      status: { phase: 'Active' },
    });
  });

  it('Namespace: the label follows the name on update, finalizers are left alone', () => {
    const ns = defaulted(
      '',
      'Namespace',
      { metadata: { name: 'a', labels: { 'kubernetes.io/metadata.name': 'b' } }, spec: {} },
      'update',
    );
    assert.deepStrictEqual(ns, {
      metadata: { name: 'a', labels: { 'kubernetes.io/metadata.name': 'a' } },
      spec: {},
      status: { phase: 'Active' },
    });
  });

  it('Node: allocatable from capacity, canonical quantities, zero-valued status structs', () => {
    const node = defaulted('', 'Node', {
      metadata: { name: 'n1' },
      status: { capacity: { cpu: '4', memory: '8192Mi', pods: '110', 'example.com/foo': 4 } },
    });
    assert.deepStrictEqual(node, {
      metadata: { name: 'n1' },
      spec: {},
      status: {
        capacity: { cpu: '4', memory: '8Gi', pods: '110', 'example.com/foo': '4' },
        allocatable: { cpu: '4', memory: '8Gi', pods: '110', 'example.com/foo': '4' },
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          architecture: '',
          bootID: '',
          containerRuntimeVersion: '',
          kernelVersion: '',
          kubeProxyVersion: '',
          kubeletVersion: '',
          machineID: '',
          operatingSystem: '',
          osImage: '',
          systemUUID: '',
        },
      },
    });
  });

  it('Secret: Opaque, stringData folded into base64 data and removed', () => {
    const s = defaulted('', 'Secret', { data: { a: 'b2xk', keep: 'eA==' }, stringData: { a: 'new', ü: 'ç' } });
    assert.deepStrictEqual(s, { type: 'Opaque', data: { a: 'bmV3', keep: 'eA==', ü: 'w6c=' } });
    const t = defaulted('', 'Secret', { type: 'kubernetes.io/tls', stringData: {} }, 'update');
    assert.deepStrictEqual(t, { type: 'kubernetes.io/tls' });
  });

  it('PersistentVolumeClaim: Filesystem, canonical storage, Pending', () => {
    const pvc = defaulted('', 'PersistentVolumeClaim', {
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1073741824' } } },
      status: { phase: 'Bound' },
    });
    assert.deepStrictEqual(pvc, {
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1073741824' } },
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    });
  });

  it('PersistentVolume: Retain, Filesystem, Pending with its transition time', () => {
    const pv = defaulted('', 'PersistentVolume', {
      spec: { capacity: { storage: '10Gi' }, hostPath: { path: '/mnt' } },
    });
    assert.deepStrictEqual(pv, {
      spec: {
        capacity: { storage: '10Gi' },
        hostPath: { path: '/mnt', type: '' },
        persistentVolumeReclaimPolicy: 'Retain',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending', lastPhaseTransitionTime: '2024-05-01T10:00:00Z' },
    });
  });

  it('Event: the fields Go writes even when unset', () => {
    const ev = defaulted('', 'Event', {
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'Started',
    });
    assert.deepStrictEqual(ev, {
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'Started',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  it('ConfigMap and ServiceAccount are stored as sent', () => {
    for (const kind of ['ConfigMap', 'ServiceAccount']) {
      const o = defaulted('', kind, { metadata: { name: 'x' }, data: { a: 'b' } });
      assert.deepStrictEqual(o, { metadata: { name: 'x' }, data: { a: 'b' } });
    }
  });
});

describe('other built-in defaults', () => {
  it('webhook configurations', () => {
    const hook = {
      name: 'h.example.com',
      clientConfig: { service: { name: 's', namespace: 'n' } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    };
    const m = defaulted('admissionregistration.k8s.io', 'MutatingWebhookConfiguration', {
      webhooks: [structuredClone(hook)],
    });
    assert.deepStrictEqual(m.webhooks, [
      {
        ...hook,
        clientConfig: { service: { name: 's', namespace: 'n', port: 443 } },
        rules: [{ ...hook.rules[0], scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
      },
    ]);
    const v = defaulted('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', {
      webhooks: [structuredClone(hook)],
    });
    assert.equal((v.webhooks as JsonObject[])[0].reinvocationPolicy, undefined);
    assert.equal((v.webhooks as JsonObject[])[0].timeoutSeconds, 10);
  });

  it('RBAC roles write rules: null when unset', () => {
    assert.deepStrictEqual(defaulted('rbac.authorization.k8s.io', 'ClusterRole', { metadata: { name: 'r' } }), {
      metadata: { name: 'r' },
      rules: null,
    });
    assert.deepStrictEqual(defaulted('rbac.authorization.k8s.io', 'Role', { rules: [] }), { rules: [] });
  });

  it('PriorityClass, Lease, Ingress, PodDisruptionBudget, NetworkPolicy, RuntimeClass', () => {
    assert.deepStrictEqual(defaulted('scheduling.k8s.io', 'PriorityClass', { value: 5 }), {
      value: 5,
      preemptionPolicy: 'PreemptLowerPriority',
    });
    assert.deepStrictEqual(defaulted('coordination.k8s.io', 'Lease', {}), { spec: {} });
    assert.deepStrictEqual(
      defaulted('networking.k8s.io', 'Ingress', {
        spec: {},
        status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } },
      }),
      { spec: {}, status: { loadBalancer: {} } },
    );
    assert.deepStrictEqual(defaulted('policy', 'PodDisruptionBudget', { spec: { minAvailable: 1 } }), {
      spec: { minAvailable: 1 },
      status: { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 },
    });
    assert.deepStrictEqual(
      defaulted('networking.k8s.io', 'NetworkPolicy', { spec: { ingress: [{ ports: [{ port: 80 }] }] } }),
      {
        spec: { ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }], policyTypes: ['Ingress'] },
      },
    );
    assert.deepStrictEqual(defaulted('node.k8s.io', 'RuntimeClass', { handler: 'kata' }), { handler: 'kata' });
  });

  it('leaves unknown kinds alone', () => {
    assert.deepStrictEqual(defaulted('example.com', 'Widget', { spec: {} }), { spec: {} });
  });
});
