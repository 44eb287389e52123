// Table tests of the pure diff functions of the service, ingress and cluster role binding handlers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  desiredServices,
  isServiceModified,
  mergeService,
  portsEqual,
  workerServicePorts,
} from '../../../../src/kvm/handlers/cluster/service.ts';
import type { Service, ServicePort } from '../../../../src/kvm/handlers/cluster/service.ts';
import { desiredIngresses, isIngressModified, mergeIngress } from '../../../../src/kvm/handlers/cluster/ingress.ts';
import type { Ingress } from '../../../../src/kvm/handlers/cluster/ingress.ts';
import {
  desiredClusterRoleBindings,
  planClusterRoleBindings,
  subjectsEqual,
} from '../../../../src/kvm/handlers/cluster/clusterrolebinding.ts';
import type { ClusterRoleBinding } from '../../../../src/kvm/handlers/cluster/clusterrolebinding.ts';
import { KVM_DEFAULTS } from '../../../../src/kvm/options.ts';
import { sampleKvmConfig } from '../../helpers.ts';

describe('portsEqual', () => {
  const p = (o: Partial<ServicePort> = {}): ServicePort => ({
    name: 'http',
    protocol: 'TCP',
    port: 80,
    targetPort: 80,
    ...o,
  });
  const cases: { name: string; current: ServicePort[] | undefined; desired: ServicePort[]; want: boolean }[] = [
    { name: 'equal', current: [p()], desired: [p()], want: true },
    { name: 'both empty', current: undefined, desired: [], want: true },
    { name: 'different length', current: [p()], desired: [p(), p({ name: 'https', port: 443 })], want: false },
    { name: 'name differs', current: [p({ name: 'web' })], desired: [p()], want: false },
    { name: 'port differs', current: [p({ port: 81 })], desired: [p()], want: false },
    { name: 'targetPort differs', current: [p({ targetPort: 8080 })], desired: [p()], want: false },
    { name: 'protocol defaults to TCP', current: [p({ protocol: undefined })], desired: [p()], want: true },
    { name: 'protocol differs', current: [p({ protocol: 'UDP' })], desired: [p()], want: false },
    { name: 'targetPort defaults to port', current: [p({ targetPort: undefined })], desired: [p()], want: true },
    { name: 'numeric targetPort as string', current: [p({ targetPort: '80' })], desired: [p()], want: true },
    { name: 'server-assigned nodePort, none pinned', current: [p({ nodePort: 31234 })], desired: [p()], want: true },
    {
      name: 'pinned nodePort matches',
      current: [p({ nodePort: 30100 })],
      desired: [p({ nodePort: 30100 })],
      want: true,
    },
    {
      name: 'pinned nodePort differs',
      current: [p({ nodePort: 31234 })],
      desired: [p({ nodePort: 30100 })],
      want: false,
    },
    {
      name: 'order matters',
      current: [p({ name: 'b', port: 2 }), p({ name: 'a', port: 1 })],
      desired: [p({ name: 'a', port: 1 }), p({ name: 'b', port: 2 })],
      want: false,
    },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(portsEqual(tc.current, tc.desired), tc.want));
});

describe('workerServicePorts', () => {
  it('defaults to http 30010 and https 30011, nodePort left to the server', () => {
    assert.deepEqual(workerServicePorts(sampleKvmConfig()), [
      { name: 'http', protocol: 'TCP', port: 30010, targetPort: 30010 },
      { name: 'https', protocol: 'TCP', port: 30011, targetPort: 30011 },
    ]);
  });
  it('maps portMappings: port = targetPort, nodePort pinned', () => {
    const c = sampleKvmConfig();
    c.spec.kvm.portMappings = [{ name: 'http', nodePort: 31010, targetPort: 30010 }];
    assert.deepEqual(workerServicePorts(c), [
      { name: 'http', protocol: 'TCP', port: 30010, targetPort: 30010, nodePort: 31010 },
    ]);
  });
});

describe('isServiceModified', () => {
  const [master, worker] = desiredServices(sampleKvmConfig());
  const served = (s: Service, patch: (x: Service) => void = () => {}): Service => {
    const x = structuredClone(s);
    x.metadata = { ...x.metadata, resourceVersion: '7', uid: 'u1' };
    x.spec.clusterIP = '10.0.0.7';
    x.spec.clusterIPs = ['10.0.0.7'];
    x.spec.sessionAffinity = 'None';
    patch(x);
    return x;
  };
  const cases: { name: string; current: Service; desired: Service; want: boolean }[] = [
    { name: 'as created, with server fields', current: served(master), desired: master, want: false },
    {
      name: 'worker with allocated nodePorts',
      current: served(worker, (x) => x.spec.ports?.forEach((p, i) => (p.nodePort = 31000 + i))),
      desired: worker,
      want: false,
    },
    {
      name: 'extra foreign label and annotation',
      current: served(master, (x) => {
        x.metadata.labels = { ...x.metadata.labels, foo: 'bar' };
        x.metadata.annotations = { ...x.metadata.annotations, a: 'b' };
      }),
      desired: master,
      want: false,
    },
    { name: 'type differs', current: served(worker, (x) => (x.spec.type = 'ClusterIP')), desired: worker, want: true },
    {
      name: 'type unset means ClusterIP',
      current: served(master, (x) => delete x.spec.type),
      desired: master,
      want: false,
    },
    {
      name: 'api port changed',
      current: served(master, (x) => ((x.spec.ports as ServicePort[])[1].port = 6443)),
      desired: master,
      want: true,
    },
    {
      name: 'one of our labels changed',
      current: served(master, (x) => (x.metadata.labels = { ...x.metadata.labels, cluster: 'other' })),
      desired: master,
      want: true,
    },
    {
      name: 'etcd-domain annotation missing',
      current: served(master, (x) => (x.metadata.annotations = {})),
      desired: master,
      want: true,
    },
    {
      name: 'a selector was added',
      current: served(master, (x) => (x.spec.selector = { app: 'master' })),
      desired: master,
      want: true,
    },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(isServiceModified(tc.current, tc.desired), tc.want));
});

describe('mergeService', () => {
  it('keeps clusterIP, allocated nodePorts, foreign labels; drops the selector', () => {
    const [, worker] = desiredServices(sampleKvmConfig());
    const current: Service = {
      ...structuredClone(worker),
      metadata: { ...worker.metadata, resourceVersion: '9', labels: { other: 'x' } },
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.0.0.9',
        clusterIPs: ['10.0.0.9'],
        selector: { a: 'b' },
        ports: [{ name: 'http', port: 30010, targetPort: 30010, nodePort: 32001 }],
      },
    };
    const merged = mergeService(current, worker);
    assert.equal(merged.metadata.resourceVersion, '9');
    assert.equal(merged.spec.clusterIP, '10.0.0.9');
    assert.deepEqual(merged.spec.clusterIPs, ['10.0.0.9']);
    assert.equal(merged.spec.type, 'NodePort');
    assert.equal(merged.spec.selector, undefined);
    assert.equal(merged.metadata.labels?.other, 'x');
    assert.equal(merged.metadata.labels?.['giantswarm.io/managed-by'], 'kvm-operator');
    assert.deepEqual(
      merged.spec.ports?.map((p) => [p.name, p.nodePort]),
      [
        ['http', 32001],
        ['https', undefined],
      ],
    );
    assert.equal(isServiceModified(merged, worker), false);
  });
  it('drops nodePorts when the type is ClusterIP', () => {
    const [master] = desiredServices(sampleKvmConfig());
    const current: Service = {
      ...structuredClone(master),
      spec: { type: 'NodePort', ports: [{ name: 'etcd', port: 2379, nodePort: 32000 }] },
    };
    const merged = mergeService(current, master);
    assert.ok(merged.spec.ports?.every((p) => p.nodePort === undefined));
  });
});

describe('desired ingresses', () => {
  it('api → master:securePort and etcd → master:2379, TLS passthrough, no class', () => {
    const c = sampleKvmConfig();
    c.spec.cluster.kubernetes = { api: { domain: 'api.x', securePort: 6443 } };
    const [api, etcd] = desiredIngresses(c);
    assert.equal(api.apiVersion, 'networking.k8s.io/v1');
    assert.equal(api.metadata.annotations?.['nginx.ingress.kubernetes.io/ssl-passthrough'], 'true');
    assert.equal(api.spec.ingressClassName, undefined);
    assert.deepEqual(api.spec.tls, [{ hosts: ['api.x'] }]);
    assert.equal(api.spec.rules?.[0].host, 'api.x');
    assert.deepEqual(api.spec.rules?.[0].http?.paths[0].backend, {
      service: { name: 'master', port: { number: 6443 } },
    });
    assert.equal(etcd.spec.rules?.[0].host, c.spec.cluster.etcd?.domain);
    assert.deepEqual(etcd.spec.rules?.[0].http?.paths[0].backend, {
      service: { name: 'master', port: { number: 2379 } },
    });
  });
});

describe('isIngressModified', () => {
  const [api] = desiredIngresses(sampleKvmConfig());
  const with_ = (patch: (x: Ingress) => void): Ingress => {
    const x = structuredClone(api);
    x.metadata.resourceVersion = '3';
    patch(x);
    return x;
  };
  const cases: { name: string; current: Ingress; want: boolean }[] = [
    { name: 'as created', current: with_(() => {}), want: false },
    {
      name: 'class set by the cluster default',
      current: with_((x) => (x.spec.ingressClassName = 'nginx')),
      want: false,
    },
    {
      name: 'keys in another order',
      current: with_((x) => {
        const path = x.spec.rules![0].http!.paths[0];
        x.spec.rules![0].http!.paths[0] = { backend: path.backend, pathType: path.pathType, path: path.path };
      }),
      want: false,
    },
    { name: 'host changed', current: with_((x) => (x.spec.rules![0].host = 'old.example.com')), want: true },
    { name: 'tls hosts changed', current: with_((x) => (x.spec.tls = [{ hosts: ['old.example.com'] }])), want: true },
    { name: 'passthrough annotation removed', current: with_((x) => (x.metadata.annotations = {})), want: true },
    {
      name: 'foreign annotation added',
      current: with_((x) => (x.metadata.annotations = { ...x.metadata.annotations, a: 'b' })),
      want: false,
    },
    { name: 'managed label missing', current: with_((x) => (x.metadata.labels = {})), want: true },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(isIngressModified(tc.current, api), tc.want));
  it('mergeIngress keeps the class and the resourceVersion', () => {
    const merged = mergeIngress(
      with_((x) => {
        x.spec.ingressClassName = 'nginx';
        x.spec.rules![0].host = 'old';
      }),
      api,
    );
    assert.equal(merged.spec.ingressClassName, 'nginx');
    assert.equal(merged.metadata.resourceVersion, '3');
    assert.equal(isIngressModified(merged, api), false);
  });
});

describe('planClusterRoleBindings', () => {
  const c = sampleKvmConfig();
  const desired = desiredClusterRoleBindings(c, KVM_DEFAULTS);
  const stored = (b: ClusterRoleBinding, patch: (x: ClusterRoleBinding) => void = () => {}): ClusterRoleBinding => {
    const x = structuredClone(b);
    x.metadata.uid = `uid-${b.metadata.name}`;
    x.metadata.resourceVersion = '5';
    // The API server defaults a service account subject's apiGroup to "".
    x.subjects = x.subjects?.map((s) => ({ ...s, apiGroup: '' }));
    patch(x);
    return x;
  };
  const names = (l: { metadata: { name?: string } }[]) => l.map((b) => b.metadata.name);
  const cases: {
    name: string;
    current: ClusterRoleBinding[];
    create: string[];
    update: string[];
    replace: string[];
  }[] = [
    { name: 'none exist → both created', current: [], create: ['abc12', 'abc12-psp'], update: [], replace: [] },
    { name: 'both as desired → nothing', current: desired.map((d) => stored(d)), create: [], update: [], replace: [] },
    { name: 'psp missing → created', current: [stored(desired[0])], create: ['abc12-psp'], update: [], replace: [] },
    {
      name: 'subject changed → updated',
      current: [
        stored(desired[0], (x) => (x.subjects = [{ kind: 'ServiceAccount', name: 'other', namespace: 'abc12' }])),
        stored(desired[1]),
      ],
      create: [],
      update: ['abc12'],
      replace: [],
    },
    {
      name: 'labels missing → updated',
      current: [stored(desired[0], (x) => (x.metadata.labels = {})), stored(desired[1])],
      create: [],
      update: ['abc12'],
      replace: [],
    },
    {
      name: 'roleRef changed → replaced, not updated',
      current: [stored(desired[0]), stored(desired[1], (x) => (x.roleRef = { ...x.roleRef, name: 'old-psp' }))],
      create: [],
      update: [],
      replace: ['abc12-psp'],
    },
    {
      name: 'roleRef and subjects changed → replaced only',
      current: [
        stored(desired[0], (x) => {
          x.roleRef = { ...x.roleRef, name: 'old' };
          x.subjects = [];
        }),
        stored(desired[1]),
      ],
      create: [],
      update: [],
      replace: ['abc12'],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const plan = planClusterRoleBindings(tc.current, desired);
      assert.deepEqual(names(plan.create), tc.create);
      assert.deepEqual(names(plan.update), tc.update);
      assert.deepEqual(names(plan.replace.map((r) => r.desired)), tc.replace);
      for (const u of plan.update) {
        assert.equal(u.metadata.resourceVersion, '5', 'updates carry the stored resourceVersion');
        assert.deepEqual(u.subjects, desired.find((d) => d.metadata.name === u.metadata.name)?.subjects);
      }
      for (const r of plan.replace) assert.equal(r.current.metadata.uid, `uid-${r.desired.metadata.name}`);
    });
  }
  it('desired bindings: general and psp roles, subject SA <id>/<id>', () => {
    assert.deepEqual(
      desired.map((d) => [d.metadata.name, d.roleRef.name, d.subjects]),
      [
        ['abc12', KVM_DEFAULTS.clusterRoleGeneral, [{ kind: 'ServiceAccount', name: 'abc12', namespace: 'abc12' }]],
        ['abc12-psp', KVM_DEFAULTS.clusterRolePsp, [{ kind: 'ServiceAccount', name: 'abc12', namespace: 'abc12' }]],
      ],
    );
  });
  it('subjectsEqual: the defaulted apiGroup matches an unset one, a user subject is not a service account', () => {
    assert.equal(
      subjectsEqual(
        [{ kind: 'ServiceAccount', name: 'a', namespace: 'a' }],
        [{ kind: 'ServiceAccount', name: 'a', namespace: 'a', apiGroup: '' }],
      ),
      true,
    );
    assert.equal(
      subjectsEqual(
        [{ kind: 'User', name: 'a' }],
        [{ kind: 'User', name: 'a', apiGroup: 'rbac.authorization.k8s.io' }],
      ),
      true,
    );
    assert.equal(subjectsEqual([{ kind: 'User', name: 'a' }], [{ kind: 'ServiceAccount', name: 'a' }]), false);
  });
});
