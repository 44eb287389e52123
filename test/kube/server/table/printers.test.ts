// Unit tests of the Table printers: cells computed from objects at a fixed instant.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import type { ResourceDef } from '../../../../src/kube/registry/resource.ts';
import { builtinResourceDefs } from '../../../../src/kube/registry/builtins.ts';
import { withBuiltinStrategies } from '../../../../src/kube/registry/strategies.ts';
import { printerFor } from '../../../../src/kube/server/table/index.ts';
import { formatSelector, since } from '../../../../src/kube/server/table/fields.ts';
import { selectorString } from '../../../../src/kube/builtins/selector.ts';
import { customResourcePrinter } from '../../../../src/kube/server/table/printers/custom.ts';
import { eventsV1View } from '../../../../src/kube/registry/events-view.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const ago = (seconds: number): string => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const defs = new Map(withBuiltinStrategies(builtinResourceDefs()).map((d) => [`${d.group}/${d.resource}`, d]));
const def = (key: string): ResourceDef => {
  const d = defs.get(key);
  assert.ok(d, key);
  return d;
};
const columnsOf = (key: string): string[] => printerFor(def(key)).columns.map((c) => c.name);
const narrow = (key: string): string[] =>
  printerFor(def(key))
    .columns.filter((c) => c.priority === 0)
    .map((c) => c.name);
const cells = (key: string, obj: JsonObject) => printerFor(def(key)).cells(obj, NOW);
const m = (name: string, age = 60, extra: JsonObject = {}): JsonObject => ({
  name,
  creationTimestamp: ago(age),
  ...extra,
});

describe('ages', () => {
  test('follow HumanDuration', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [59, '59s'],
      [119, '119s'],
      [120, '2m'],
      [190, '3m10s'],
      [600, '10m'],
      [3 * 3600 - 1, '179m'],
      [3 * 3600, '3h'],
      [5 * 3600 + 30 * 60, '5h30m'],
      [8 * 3600, '8h'],
      [47 * 3600, '47h'],
      [49 * 3600, '2d1h'],
      [8 * 86400, '8d'],
      [400 * 86400, '400d'],
      [(2 * 365 + 3) * 86400, '2y3d'],
      [9 * 365 * 86400, '9y'],
    ];
    for (const [s, want] of cases) assert.equal(since(ago(s), NOW), want, `${s}s`);
  });
  test('missing or zero timestamps read <unknown>', () => {
    assert.equal(since(undefined, NOW), '<unknown>');
    assert.equal(since('0001-01-01T00:00:00Z', NOW), '<unknown>');
    assert.equal(cells('/configmaps', { metadata: { name: 'x' } })[2], '<unknown>');
  });
});

describe('selectors', () => {
  test('sorted requirements, kube syntax', () => {
    const sel = {
      matchLabels: { b: '2', a: '1' },
      matchExpressions: [
        { key: 'c', operator: 'In', values: ['y', 'x'] },
        { key: 'd', operator: 'DoesNotExist' },
        { key: 'aa', operator: 'Exists' },
        { key: 'e', operator: 'NotIn', values: ['z'] },
      ],
    };
    assert.equal(selectorString(sel), 'a=1,aa,b=2,c in (x,y),!d,e notin (z)');
    assert.equal(formatSelector({}), '<none>');
    assert.equal(formatSelector(undefined), '<none>');
    assert.equal(formatSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '<error>');
  });
});

describe('pods', () => {
  const pod = (status: JsonObject, spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject => ({
    metadata: m('p', 90, metadata),
    spec: {
      containers: [
        { name: 'a', image: 'i' },
        { name: 'b', image: 'i' },
      ],
      ...spec,
    },
    status,
  });
  test('columns', () => {
    assert.deepEqual(narrow('/pods'), ['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    assert.deepEqual(columnsOf('/pods').slice(5), ['IP', 'Node', 'Nominated Node', 'Readiness Gates']);
  });
  test('pending pod', () => {
    assert.deepEqual(cells('/pods', pod({ phase: 'Pending' })), [
      'p',
      '0/2',
      'Pending',
      '0',
      '90s',
      '<none>',
      '<none>',
      '<none>',
      '<none>',
    ]);
  });
  test('running pod with a restart', () => {
    const running = { state: { running: { startedAt: ago(30) } }, ready: true };
    const c = cells(
      '/pods',
      pod(
        {
          phase: 'Running',
          podIP: '10.0.0.5',
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'gate', status: 'True' },
          ],
          containerStatuses: [
            {
              name: 'a',
              ...running,
              restartCount: 2,
              lastState: { terminated: { exitCode: 1, finishedAt: ago(300) } },
            },
            { name: 'b', ...running, restartCount: 0 },
          ],
        },
        { nodeName: 'n1', readinessGates: [{ conditionType: 'gate' }, { conditionType: 'other' }] },
      ),
    );
    assert.deepEqual(c, ['p', '2/2', 'Running', '2 (5m ago)', '90s', '10.0.0.5', 'n1', '<none>', '1/2']);
  });
  test('container reasons win over the phase', () => {
    const waiting = (reason: string) => ({ name: 'a', state: { waiting: { reason } }, ready: false, restartCount: 0 });
    assert.equal(
      cells('/pods', pod({ phase: 'Pending', containerStatuses: [waiting('ContainerCreating')] }))[2],
      'ContainerCreating',
    );
    assert.equal(
      cells('/pods', pod({ phase: 'Running', containerStatuses: [waiting('CrashLoopBackOff')] }))[2],
      'CrashLoopBackOff',
    );
    const done = { name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } }, ready: false };
    assert.equal(cells('/pods', pod({ phase: 'Succeeded', containerStatuses: [done] }))[2], 'Completed');
    const killed = { name: 'a', state: { terminated: { exitCode: 137, signal: 0 } } };
    assert.equal(cells('/pods', pod({ phase: 'Failed', containerStatuses: [killed] }))[2], 'ExitCode:137');
  });
  test('init containers', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }] };
    const ok = { name: 'i1', state: { terminated: { exitCode: 0 } } };
    const running = { name: 'i2', state: { running: {} } };
    assert.equal(cells('/pods', pod({ phase: 'Pending', initContainerStatuses: [ok, running] }, spec))[2], 'Init:1/2');
    const crash = { name: 'i1', state: { waiting: { reason: 'CrashLoopBackOff' } } };
    assert.equal(
      cells('/pods', pod({ phase: 'Pending', initContainerStatuses: [crash] }, spec))[2],
      'Init:CrashLoopBackOff',
    );
    const failed = { name: 'i1', state: { terminated: { exitCode: 3 } } };
    assert.equal(
      cells('/pods', pod({ phase: 'Pending', initContainerStatuses: [failed] }, spec))[2],
      'Init:ExitCode:3',
    );
  });
  test('a started sidecar counts as a container', () => {
    const spec = { initContainers: [{ name: 's', restartPolicy: 'Always' }] };
    const c = cells(
      '/pods',
      pod(
        {
          phase: 'Running',
          conditions: [{ type: 'Initialized', status: 'True' }],
          initContainerStatuses: [{ name: 's', started: true, ready: true, state: { running: {} } }],
          containerStatuses: [{ name: 'a', ready: true, state: { running: {} } }],
        },
        spec,
      ),
    );
    assert.equal(c[1], '2/3');
    assert.equal(c[2], 'Running');
  });
  test('deleting pods read Terminating, except finished ones', () => {
    const deleting = { deletionTimestamp: ago(1) };
    assert.equal(cells('/pods', pod({ phase: 'Running' }, {}, deleting))[2], 'Terminating');
    assert.equal(cells('/pods', pod({ phase: 'Succeeded' }, {}, deleting))[2], 'Succeeded');
    assert.equal(cells('/pods', pod({ phase: 'Running', reason: 'NodeLost' }, {}, deleting))[2], 'Unknown');
  });
  test('finished pods carry the Completed row condition', () => {
    assert.deepEqual(printerFor(def('/pods')).conditions?.(pod({ phase: 'Succeeded' })), [
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    assert.equal(printerFor(def('/pods')).conditions?.(pod({ phase: 'Running' })), undefined);
  });
});

describe('nodes', () => {
  test('status, roles, version and wide columns', () => {
    assert.deepEqual(narrow('/nodes'), ['Name', 'Status', 'Roles', 'Age', 'Version']);
    const node: JsonObject = {
      metadata: m('n1', 7200, {
        labels: {
          'node-role.kubernetes.io/control-plane': '',
          'node-role.kubernetes.io/worker': '',
          'kubernetes.io/role': 'edge',
        },
      }),
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [
          { type: 'InternalIP', address: '10.1.1.1' },
          { type: 'Hostname', address: 'n1' },
        ],
        nodeInfo: {
          kubeletVersion: 'v1.33.0',
          osImage: 'Debian',
          kernelVersion: '6.1',
          containerRuntimeVersion: 'containerd://2',
        },
      },
    };
    assert.deepEqual(cells('/nodes', node), [
      'n1',
      'Ready,SchedulingDisabled',
      'control-plane,edge,worker',
      '120m',
      'v1.33.0',
      '10.1.1.1',
      '<none>',
      'Debian',
      '6.1',
      'containerd://2',
    ]);
    const bare = cells('/nodes', { metadata: m('n2'), status: {} });
    assert.deepEqual(bare.slice(1, 5), ['Unknown', '<none>', '60s', '']);
    assert.deepEqual(bare.slice(7), ['<unknown>', '<unknown>', '<unknown>']);
    const notReady = cells('/nodes', {
      metadata: m('n3'),
      status: { conditions: [{ type: 'Ready', status: 'Unknown' }] },
    });
    assert.equal(notReady[1], 'NotReady');
  });
});

describe('workloads', () => {
  const template = {
    spec: {
      containers: [
        { name: 'web', image: 'nginx' },
        { name: 'side', image: 'busybox' },
      ],
    },
  };
  test('deployments', () => {
    assert.deepEqual(narrow('apps/deployments'), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age']);
    const d = {
      metadata: m('web'),
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    assert.deepEqual(cells('apps/deployments', d), ['web', '2/3', 3, 2, '60s', 'web,side', 'nginx,busybox', 'app=web']);
  });
  test('replicasets, statefulsets, daemonsets', () => {
    const spec = { replicas: 2, selector: { matchLabels: { app: 'x' } }, template };
    assert.deepEqual(
      cells('apps/replicasets', { metadata: m('rs'), spec, status: { replicas: 2, readyReplicas: 1 } }),
      ['rs', 2, 2, 1, '60s', 'web,side', 'nginx,busybox', 'app=x'],
    );
    assert.deepEqual(cells('apps/statefulsets', { metadata: m('db'), spec, status: { readyReplicas: 1 } }), [
      'db',
      '1/2',
      '60s',
      'web,side',
      'nginx,busybox',
    ]);
    assert.deepEqual(narrow('apps/daemonsets'), [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Up-to-date',
      'Available',
      'Node Selector',
      'Age',
    ]);
    const ds = {
      metadata: m('ds'),
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: { spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux' } } },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    };
    assert.deepEqual(cells('apps/daemonsets', ds).slice(0, 8), ['ds', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '60s']);
  });
  test('jobs', () => {
    const job = (status: JsonObject, spec: JsonObject = {}) => ({
      metadata: m('j'),
      spec: { template, ...spec },
      status,
    });
    assert.deepEqual(
      cells(
        'batch/jobs',
        job(
          {
            succeeded: 1,
            startTime: ago(50),
            completionTime: ago(20),
            conditions: [{ type: 'Complete', status: 'True' }],
          },
          { completions: 1 },
        ),
      ).slice(0, 5),
      ['j', 'Complete', '1/1', '30s', '60s'],
    );
    assert.deepEqual(cells('batch/jobs', job({ startTime: ago(10) }, { parallelism: 3 })).slice(1, 4), [
      'Running',
      '0/1 of 3',
      '10s',
    ]);
    assert.equal(cells('batch/jobs', job({}))[3], '');
  });
  test('controllerrevisions', () => {
    const cr = {
      metadata: m('rev', 60, {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true }],
      }),
      revision: 4,
    };
    assert.deepEqual(cells('apps/controllerrevisions', cr), ['rev', 'daemonset.apps/ds', 4, '60s']);
  });
});

describe('services and networking', () => {
  test('services', () => {
    assert.deepEqual(narrow('/services'), ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age']);
    const svc = (spec: JsonObject, status: JsonObject = {}) => ({ metadata: m('s'), spec, status });
    assert.deepEqual(
      cells(
        '/services',
        svc({
          type: 'ClusterIP',
          clusterIP: '10.96.0.1',
          ports: [{ port: 443, protocol: 'TCP' }],
          selector: { b: '1', a: '2' },
        }),
      ),
      ['s', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '60s', 'a=2,b=1'],
    );
    const np = cells(
      '/services',
      svc({
        type: 'NodePort',
        clusterIP: '10.0.0.2',
        ports: [
          { port: 80, nodePort: 30080, protocol: 'TCP' },
          { port: 53, protocol: 'UDP' },
        ],
      }),
    );
    assert.deepEqual(np.slice(3, 5), ['<none>', '80:30080/TCP,53/UDP']);
    assert.equal(np[6], '<none>');
    assert.equal(cells('/services', svc({ type: 'LoadBalancer', clusterIP: '10.0.0.3', ports: [] }))[3], '<pending>');
    assert.equal(
      cells(
        '/services',
        svc(
          { type: 'LoadBalancer', clusterIP: '10.0.0.3' },
          { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com' }] } },
        ),
      )[3],
      '1.2.3.4,lb.example.com',
    );
    assert.deepEqual(cells('/services', svc({ type: 'ExternalName', externalName: 'db.example.com' })).slice(2, 5), [
      '<none>',
      'db.example.com',
      '<none>',
    ]);
    assert.equal(cells('/services', svc({ type: 'ClusterIP', clusterIP: 'None', ports: [] }))[2], 'None');
  });
  test('endpoints', () => {
    const ep = {
      metadata: m('e'),
      subsets: [
        {
          addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'fd00::1' }, { ip: '10.0.0.4' }],
          ports: [{ port: 80 }],
        },
      ],
    };
    assert.deepEqual(cells('/endpoints', ep), ['e', '10.0.0.1:80,10.0.0.2:80,[fd00::1]:80 + 1 more...', '60s']);
    assert.equal(cells('/endpoints', { metadata: m('e') })[1], '<none>');
  });
  test('endpointslices', () => {
    // printEndpointSlice: ports by number (else name, else "*"), three at most; `<unset>` when none.
    const slice = {
      metadata: m('web-x1y2z'),
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080 }, { name: 'named' }, {}, { port: 1 }],
      endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2', '10.0.0.3'] }, { addresses: ['10.0.0.4'] }],
    };
    assert.deepEqual(cells('discovery.k8s.io/endpointslices', slice), [
      'web-x1y2z',
      'IPv4',
      '8080,named,* + 1 more...',
      '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...',
      '60s',
    ]);
    assert.deepEqual(
      cells('discovery.k8s.io/endpointslices', { metadata: m('p'), addressType: 'IPv4', endpoints: [], ports: null }),
      ['p', 'IPv4', '<unset>', '<unset>', '60s'],
    );
  });
  test('ingresses and network policies', () => {
    const ing = {
      metadata: m('i'),
      spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com' }, {}], tls: [{}] },
      status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } },
    };
    assert.deepEqual(cells('networking.k8s.io/ingresses', ing), [
      'i',
      'nginx',
      'a.example.com',
      '1.1.1.1',
      '80, 443',
      '60s',
    ]);
    assert.deepEqual(cells('networking.k8s.io/ingresses', { metadata: m('j'), spec: {} }).slice(1, 5), [
      '<none>',
      '*',
      '',
      '80',
    ]);
    assert.deepEqual(cells('networking.k8s.io/networkpolicies', { metadata: m('np'), spec: { podSelector: {} } }), [
      'np',
      '<none>',
      '60s',
    ]);
  });
});

describe('config, namespaces, cluster kinds', () => {
  test('configmaps, secrets, serviceaccounts, namespaces', () => {
    assert.deepEqual(cells('/configmaps', { metadata: m('c'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), [
      'c',
      3,
      '60s',
    ]);
    assert.deepEqual(cells('/secrets', { metadata: m('s'), type: 'Opaque', data: { a: 'MQ==' } }), [
      's',
      'Opaque',
      1,
      '60s',
    ]);
    assert.deepEqual(cells('/serviceaccounts', { metadata: m('sa'), secrets: [{ name: 'x' }] }), ['sa', 1, '60s']);
    assert.deepEqual(cells('/namespaces', { metadata: m('ns'), status: { phase: 'Terminating' } }), [
      'ns',
      'Terminating',
      '60s',
    ]);
  });
  test('leases, runtimeclasses, webhooks, PDBs, priorityclasses, quotas', () => {
    assert.deepEqual(cells('coordination.k8s.io/leases', { metadata: m('l'), spec: { holderIdentity: 'me' } }), [
      'l',
      'me',
      '60s',
    ]);
    assert.deepEqual(cells('node.k8s.io/runtimeclasses', { metadata: m('kata'), handler: 'kata-qemu' }), [
      'kata',
      'kata-qemu',
      '60s',
    ]);
    assert.deepEqual(
      cells('admissionregistration.k8s.io/validatingwebhookconfigurations', { metadata: m('w'), webhooks: [{}, {}] }),
      ['w', 2, '60s'],
    );
    assert.deepEqual(cells('admissionregistration.k8s.io/mutatingwebhookconfigurations', { metadata: m('w') }), [
      'w',
      0,
      '60s',
    ]);
    assert.deepEqual(
      cells('policy/poddisruptionbudgets', {
        metadata: m('p'),
        spec: { minAvailable: '50%' },
        status: { disruptionsAllowed: 1 },
      }),
      ['p', '50%', 'N/A', 1, '60s'],
    );
    assert.deepEqual(
      cells('scheduling.k8s.io/priorityclasses', {
        metadata: m('high'),
        value: 1000,
        globalDefault: true,
        preemptionPolicy: 'Never',
      }),
      ['high', 1000, true, '60s', 'Never'],
    );
    assert.deepEqual(
      cells('/resourcequotas', {
        metadata: m('q'),
        status: {
          hard: { pods: '10', 'limits.cpu': '2', 'requests.cpu': '1' },
          used: { pods: '1', 'requests.cpu': '500m' },
        },
      }),
      ['q', 'pods: 1/10, requests.cpu: 500m/1', 'limits.cpu: 0/2', '60s'],
    );
  });
  test('rbac: bindings print, roles use the default table', () => {
    const rb = {
      metadata: m('rb'),
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', namespace: 'ns', name: 'bot' },
        { kind: 'User', name: 'bob' },
      ],
    };
    assert.deepEqual(cells('rbac.authorization.k8s.io/rolebindings', rb), [
      'rb',
      'ClusterRole/view',
      '60s',
      'alice, bob',
      'devs',
      'ns/bot',
    ]);
    assert.deepEqual(cells('rbac.authorization.k8s.io/clusterrolebindings', rb).slice(0, 2), [
      'rb',
      'ClusterRole/view',
    ]);
    assert.deepEqual(columnsOf('rbac.authorization.k8s.io/roles'), ['Name', 'Created At']);
    assert.deepEqual(
      cells('rbac.authorization.k8s.io/clusterroles', {
        metadata: { name: 'r', creationTimestamp: '2024-01-02T03:04:05Z' },
      }),
      ['r', '2024-01-02T03:04:05Z'],
    );
    assert.deepEqual(columnsOf('apiextensions.k8s.io/customresourcedefinitions'), ['Name', 'Created At']);
    assert.deepEqual(columnsOf('/limitranges'), ['Name', 'Created At']);
  });
  test('persistent volumes and claims', () => {
    const pvc = {
      metadata: m('data', 60, { annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' } }),
      spec: { volumeName: 'pv1', storageClassName: 'slow', volumeMode: 'Filesystem' },
      status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'] },
    };
    assert.deepEqual(cells('/persistentvolumeclaims', pvc), [
      'data',
      'Bound',
      'pv1',
      '1Gi',
      'RWO,RWOP',
      'fast',
      '<unset>',
      '60s',
      'Filesystem',
    ]);
    assert.deepEqual(
      cells('/persistentvolumeclaims', { metadata: m('p'), spec: {}, status: { phase: 'Pending' } }).slice(1, 6),
      ['Pending', '', '', '', ''],
    );
    const pv = {
      metadata: m('pv1'),
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        claimRef: { namespace: 'ns', name: 'data' },
      },
      status: { phase: 'Bound' },
    };
    assert.deepEqual(cells('/persistentvolumes', pv), [
      'pv1',
      '1Gi',
      'RWX',
      'Retain',
      'Bound',
      'ns/data',
      '',
      '<unset>',
      '',
      '60s',
      '<unset>',
    ]);
  });
});

describe('events', () => {
  const core = {
    metadata: m('p.123', 600, { namespace: 'default' }),
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'default', fieldPath: 'spec.containers{a}' },
    reason: 'Pulled',
    message: ' pulled image \n',
    type: 'Normal',
    source: { component: 'kubelet', host: 'n1' },
    firstTimestamp: ago(600),
    lastTimestamp: ago(30),
    count: 3,
  };
  test('core/v1', () => {
    assert.deepEqual(narrow('/events'), ['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    assert.deepEqual(cells('/events', core), [
      '30s',
      'Normal',
      'Pulled',
      'pod/p',
      'spec.containers{a}',
      'kubelet, n1',
      'pulled image',
      '10m',
      3,
      'p.123',
    ]);
  });
  test('new-API events: eventTime, series, reportingController', () => {
    const ev = {
      metadata: m('e'),
      involvedObject: { kind: 'Node' },
      eventTime: '2024-06-01T11:59:00.000000Z',
      reportingComponent: 'scheduler',
      reportingInstance: 'sched-1',
      type: 'Warning',
      reason: 'X',
      message: 'm',
    };
    assert.deepEqual(cells('/events', ev), [
      '60s',
      'Warning',
      'X',
      'node',
      '',
      'scheduler, sched-1',
      'm',
      '60s',
      1,
      'e',
    ]);
    const series = { ...ev, series: { count: 7, lastObservedTime: '2024-06-01T11:59:50.000000Z' } };
    assert.deepEqual([cells('/events', series)[0], cells('/events', series)[8]], ['10s', 7]);
  });
  test('events.k8s.io view prints like core', () => {
    const v1 = eventsV1View.fromStored(core as JsonObject);
    assert.deepEqual(cells('events.k8s.io/events', v1), cells('/events', core));
  });
});

describe('custom resources', () => {
  const printer = customResourcePrinter([
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', format: '', description: 'd', priority: 0 },
    { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
    { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
    { name: 'Started', type: 'date', jsonPath: '.status.startedAt' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  test('columns come after Name, with priority', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.type, c.priority]),
      [
        ['Name', 'string', 0],
        ['Replicas', 'integer', 0],
        ['Ratio', 'number', 0],
        ['On', 'boolean', 0],
        ['Phase', 'string', 1],
        ['Started', 'date', 0],
        ['Age', 'date', 0],
      ],
    );
    assert.equal(printer.columns[0].format, 'name');
  });
  test('cells are typed; dates are ages', () => {
    const obj = {
      metadata: m('cr', 7200),
      spec: { replicas: 3, ratio: 0.5, on: false },
      status: { phase: 'Up', startedAt: ago(45) },
    };
    assert.deepEqual(printer.cells(obj, NOW), ['cr', 3, 0.5, false, 'Up', '45s', '120m']);
    assert.deepEqual(
      printer.cells({ metadata: { name: 'e' }, spec: { replicas: 'x' }, status: { startedAt: 'nope' } }, NOW),
      ['e', null, null, null, null, '<invalid>', null],
    );
  });
});
