// Workloads, RBAC, policy, networking and review kinds decoded from Writer-built bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject } from '../../../../src/kube/server/protobuf/index.ts';
import { envelope, mapFields, meta, msg } from './build.ts';

const labels = (num: number) => mapFields(num, { app: 'web' });

function container(name: string, image: string): Uint8Array {
  return msg(
    [1, name],
    [2, image],
    [3, 'sh'],
    [4, '-c'],
    [4, 'echo hi'],
    [6, msg([1, 'http'], [2, 0], [3, 8080], [4, 'TCP'], [5, ''])],
    [7, msg([1, 'A'], [2, 'B'])],
    [7, msg([1, 'FROM'], [3, msg([1, msg([2, 'metadata.name'])])])],
    [8, msg(...mapFields(1, { cpu: msg([1, '1']) }), ...mapFields(2, { memory: msg([1, '64Mi']) }))],
    [9, msg([1, 'data'], [2, true], [3, '/data'])],
    [10, msg([1, msg([2, msg([1, '/healthz'], [2, msg([1, 1], [3, 'http'])])])], [2, 5], [6, 3])],
    [14, 'IfNotPresent'],
    [16, false],
  );
}

const CONTAINER_JSON = {
  name: 'web',
  image: 'nginx',
  command: ['sh'],
  args: ['-c', 'echo hi'],
  ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
  env: [
    { name: 'A', value: 'B' },
    { name: 'FROM', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  ],
  resources: { limits: { cpu: '1' }, requests: { memory: '64Mi' } },
  volumeMounts: [{ name: 'data', readOnly: true, mountPath: '/data' }],
  // Probe inlines its handler (Go `json:",inline"`).
  livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5, failureThreshold: 3 },
  imagePullPolicy: 'IfNotPresent',
};

function podSpec(): Uint8Array {
  return msg(
    [1, msg([1, 'data'], [2, msg([2, msg([1, 'Memory'], [2, msg([1, '1Gi'])])])])],
    [1, msg([1, 'cfg'], [2, msg([19, msg([1, msg([1, 'app-config'])], [3, 420])])])],
    [2, container('web', 'nginx')],
    [3, 'Always'],
    [4, 0],
    [21, false],
    [22, msg([1, 'k'], [2, 'Exists'], [4, 'NoSchedule'])],
  );
}

const POD_SPEC_JSON = {
  volumes: [
    { name: 'data', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
    // ConfigMapVolumeSource inlines its LocalObjectReference.
    { name: 'cfg', configMap: { name: 'app-config', defaultMode: 420 } },
  ],
  containers: [CONTAINER_JSON],
  restartPolicy: 'Always',
  // Pointers set to zero are kept: 0 and false mean something here.
  terminationGracePeriodSeconds: 0,
  automountServiceAccountToken: false,
  tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
};

test('Deployment with selector, pod template, strategy and replicas 0', () => {
  const spec = msg(
    [1, 0],
    [2, msg(...labels(1))],
    [3, msg([1, msg(...labels(11))], [2, podSpec()])],
    [4, msg([1, 'RollingUpdate'], [2, msg([1, msg([1, 1], [3, '25%'])], [2, msg([2, 1])])])],
    [5, 0],
  );
  const obj = decodeProtobufObject(envelope('apps/v1', 'Deployment', msg([1, meta('web', labels(11))], [2, spec])));
  assert.deepEqual(obj, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: POD_SPEC_JSON },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
    },
  });
});

test('Pod with an ephemeral container (inlined common fields)', () => {
  const spec = msg([2, container('web', 'nginx')], [34, msg([1, msg([1, 'dbg'], [2, 'busybox'])], [2, 'web'])]);
  const obj = decodeProtobufObject(envelope('v1', 'Pod', msg([1, meta('p')], [2, spec])));
  assert.deepEqual((obj.spec as Record<string, unknown>).ephemeralContainers, [
    { name: 'dbg', image: 'busybox', targetContainerName: 'web' },
  ]);
});

test('Job and CronJob', () => {
  const jobSpec = msg(
    [1, 2],
    [2, 4],
    [6, msg([1, msg()], [2, msg([2, container('web', 'nginx')], [3, 'Never'])])],
    [7, 6],
  );
  const job = decodeProtobufObject(envelope('batch/v1', 'Job', msg([1, meta('j')], [2, jobSpec])));
  assert.deepEqual((job.spec as Record<string, unknown>).parallelism, 2);
  assert.deepEqual((job.spec as Record<string, unknown>).completions, 4);
  assert.deepEqual((job.spec as Record<string, unknown>).backoffLimit, 6);
  assert.deepEqual((job.spec as Record<string, unknown>).template, {
    metadata: {},
    spec: { containers: [CONTAINER_JSON], restartPolicy: 'Never' },
  });
  const cronSpec = msg([1, '*/5 * * * *'], [3, 'Forbid'], [4, true], [5, msg([2, jobSpec])], [8, 'Etc/UTC']);
  const cron = decodeProtobufObject(envelope('batch/v1', 'CronJob', msg([1, meta('c')], [2, cronSpec])));
  const spec = cron.spec as Record<string, unknown>;
  assert.equal(spec.schedule, '*/5 * * * *');
  assert.equal(spec.concurrencyPolicy, 'Forbid');
  assert.equal(spec.suspend, true);
  assert.equal(spec.timeZone, 'Etc/UTC');
  assert.deepEqual((spec.jobTemplate as Record<string, unknown>).spec, job.spec);
});

test('Role, ClusterRole with aggregationRule, RoleBinding and ClusterRoleBinding', () => {
  const rule = msg([1, 'get'], [1, 'list'], [2, ''], [2, 'apps'], [3, 'pods'], [3, 'deployments'], [4, 'x']);
  const role = decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', 'Role', msg([1, meta('r')], [2, rule])));
  assert.deepEqual(role.rules, [
    { verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments'], resourceNames: ['x'] },
  ]);
  const cr = decodeProtobufObject(
    envelope(
      'rbac.authorization.k8s.io/v1',
      'ClusterRole',
      msg([1, meta('cr')], [2, msg([1, 'get'], [5, '/logs'])], [3, msg([1, msg(...mapFields(1, { a: 'b' }))])]),
    ),
  );
  assert.deepEqual(cr.rules, [{ verbs: ['get'], nonResourceURLs: ['/logs'] }]);
  assert.deepEqual(cr.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] });
  const binding = msg(
    [1, meta('rb')],
    [2, msg([1, 'User'], [2, 'rbac.authorization.k8s.io'], [3, 'u'], [4, ''])],
    [2, msg([1, 'ServiceAccount'], [2, ''], [3, 'sa1'], [4, 'default'])],
    [3, msg([1, 'rbac.authorization.k8s.io'], [2, 'Role'], [3, 'r'])],
  );
  for (const kind of ['RoleBinding', 'ClusterRoleBinding']) {
    const rb = decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', kind, binding));
    assert.deepEqual(rb.subjects, [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u' },
      { kind: 'ServiceAccount', name: 'sa1', namespace: 'default' },
    ]);
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });
  }
});

test('PriorityClass keeps value 0 and drops an empty description', () => {
  const raw = msg([1, meta('pc')], [2, 0], [3, false], [4, ''], [5, 'Never']);
  assert.deepEqual(decodeProtobufObject(envelope('scheduling.k8s.io/v1', 'PriorityClass', raw)), {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'pc' },
    value: 0,
    preemptionPolicy: 'Never',
  });
  const big = decodeProtobufObject(envelope('scheduling.k8s.io/v1', 'PriorityClass', msg([1, meta('x')], [2, -5])));
  assert.equal(big.value, -5);
});

test('PodDisruptionBudget minAvailable / maxUnavailable as int or percent', () => {
  const spec = msg([1, msg([1, 0], [2, 1])], [2, msg(...mapFields(1, { app: 'x' }))], [3, msg([1, 1], [3, '50%'])]);
  const obj = decodeProtobufObject(envelope('policy/v1', 'PodDisruptionBudget', msg([1, meta('pdb')], [2, spec])));
  assert.deepEqual(obj.spec, { minAvailable: 1, selector: { matchLabels: { app: 'x' } }, maxUnavailable: '50%' });
});

test('Ingress rules (inlined rule value), TLS, default backend and class', () => {
  const backend = (svc: string, port: Uint8Array) => msg([4, msg([1, svc], [2, port])]);
  const spec = msg(
    [1, backend('def', msg([1, 'http']))],
    [2, msg([1, 'foo.com'], [2, 'sec'])],
    [
      3,
      msg(
        [1, 'foo.com'],
        [2, msg([1, msg([1, msg([1, '/bar'], [2, backend('svc', msg([2, 8080]))], [3, 'Prefix'])])])],
      ),
    ],
    [4, 'nginx'],
  );
  const obj = decodeProtobufObject(envelope('networking.k8s.io/v1', 'Ingress', msg([1, meta('ing')], [2, spec])));
  assert.deepEqual(obj.spec, {
    defaultBackend: { service: { name: 'def', port: { name: 'http' } } },
    tls: [{ hosts: ['foo.com'], secretName: 'sec' }],
    rules: [
      {
        host: 'foo.com',
        http: {
          paths: [{ path: '/bar', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 8080 } } } }],
        },
      },
    ],
    ingressClassName: 'nginx',
  });
});

test('TokenRequest, SelfSubjectAccessReview, SelfSubjectRulesReview, Eviction, HorizontalPodAutoscaler', () => {
  const tr = decodeProtobufObject(
    envelope(
      'authentication.k8s.io/v1',
      'TokenRequest',
      msg([1, msg()], [2, msg([1, 'x'], [4, 3600])], [3, msg([1, ''], [2, msg()])]),
    ),
  );
  assert.deepEqual(tr.spec, { audiences: ['x'], expirationSeconds: 3600 });
  assert.deepEqual(tr.status, { token: '' });
  const ssar = decodeProtobufObject(
    envelope(
      'authorization.k8s.io/v1',
      'SelfSubjectAccessReview',
      msg([2, msg([1, msg([1, 'kube-system'], [2, 'get'], [5, 'pods'], [6, 'log'])])], [3, msg([1, false])]),
    ),
  );
  assert.deepEqual(ssar.spec, {
    resourceAttributes: { namespace: 'kube-system', verb: 'get', resource: 'pods', subresource: 'log' },
  });
  assert.deepEqual(ssar.status, { allowed: false });
  const ssrr = decodeProtobufObject(
    envelope('authorization.k8s.io/v1', 'SelfSubjectRulesReview', msg([2, msg([1, 'ns'])])),
  );
  assert.deepEqual(ssrr.spec, { namespace: 'ns' });
  const ev = decodeProtobufObject(
    envelope('policy/v1', 'Eviction', msg([1, meta('p', [[3, 'ns']])], [2, msg([1, 0], [2, msg([1, 'uid'])])])),
  );
  assert.deepEqual(ev.deleteOptions, { gracePeriodSeconds: 0, preconditions: { uid: 'uid' } });
  const hpa = decodeProtobufObject(
    envelope(
      'autoscaling/v2',
      'HorizontalPodAutoscaler',
      msg(
        [1, meta('web')],
        [
          2,
          msg(
            [1, msg([1, 'Deployment'], [2, 'web'], [3, 'apps/v1'])],
            [2, 1],
            [3, 3],
            [4, msg([1, 'Resource'], [4, msg([1, 'cpu'], [2, msg([1, 'Utilization'], [4, 50])])])],
          ),
        ],
      ),
    ),
  );
  assert.deepEqual(hpa.spec, {
    scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
    minReplicas: 1,
    maxReplicas: 3,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
  });
});
