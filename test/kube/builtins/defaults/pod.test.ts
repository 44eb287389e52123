import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, computeQosClass } from '../../../../src/kube/builtins/index.ts';
import { imageTag, pullPolicyFor } from '../../../../src/kube/builtins/defaults/pod.ts';
import { StatusError } from '../../../../src/apimachinery/errors/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function pod(spec: JsonObject, metadata: JsonObject = { name: 'p', namespace: 'default' }): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

function created(p: JsonObject): JsonObject {
  applyDefaults('', 'Pod', p, 'create', { now: () => new Date('2024-05-01T10:00:00.123Z') });
  return p;
}

const spec = (p: JsonObject): JsonObject => p.spec as JsonObject;
const container = (p: JsonObject, i = 0): JsonObject => (spec(p).containers as JsonObject[])[i];

describe('Pod defaults', () => {
  it('turn a minimal Pod into what kube-apiserver stores (less the token volume)', () => {
    const p = created(
      pod({ containers: [{ name: 'nginx', image: 'nginx' }] }, { name: 'nginx', namespace: 'default' }),
    );
    assert.deepStrictEqual(p, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'nginx', namespace: 'default' },
      spec: {
        containers: [
          {
            image: 'nginx',
            imagePullPolicy: 'Always',
            name: 'nginx',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
        priority: 0,
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        serviceAccount: 'default',
        serviceAccountName: 'default',
        terminationGracePeriodSeconds: 30,
        tolerations: [
          { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
          { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
        ],
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    });
  });

  const pullPolicies: [string, string][] = [
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    ['registry.k8s.io/pause:3.10', 'IfNotPresent'],
    ['localhost:5000/app', 'Always'],
    ['localhost:5000/app:v1', 'IfNotPresent'],
    [`nginx@sha256:${'a'.repeat(64)}`, 'IfNotPresent'],
    [`nginx:latest@sha256:${'a'.repeat(64)}`, 'Always'],
    ['Nginx', 'IfNotPresent'],
    ['', 'IfNotPresent'],
    [' nginx', 'IfNotPresent'],
  ];
  for (const [image, want] of pullPolicies) {
    it(`imagePullPolicy for ${JSON.stringify(image)} is ${want}`, () => {
      assert.equal(pullPolicyFor(image), want);
      const p = created(pod({ containers: [{ name: 'c', image }] }));
      assert.equal(container(p).imagePullPolicy, want);
    });
  }

  it('keeps an explicit imagePullPolicy and reports the parsed tag', () => {
    const p = created(pod({ containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }] }));
    assert.equal(container(p).imagePullPolicy, 'Never');
    assert.equal(imageTag('quay.io/org/app:2'), '2');
  });

  it('defaults ports, env fieldRefs, probes and lifecycle handlers', () => {
    const p = created(
      pod({
        containers: [
          {
            name: 'c',
            image: 'i:1',
            ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
            env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            livenessProbe: { httpGet: { port: 8080 } },
            readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
            startupProbe: { grpc: { port: 9000 } },
            lifecycle: { preStop: { httpGet: { port: 80, path: '/quit' } } },
          },
        ],
      }),
    );
    const c = container(p);
    assert.deepStrictEqual(c.ports, [
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
    assert.deepStrictEqual(c.env, [
      { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
    ]);
    assert.deepStrictEqual(c.livenessProbe, {
      httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepStrictEqual(c.readinessProbe, {
      tcpSocket: { port: 80 },
      periodSeconds: 5,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepStrictEqual(c.startupProbe, {
      grpc: { port: 9000, service: '' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepStrictEqual(c.lifecycle, { preStop: { httpGet: { port: 80, path: '/quit', scheme: 'HTTP' } } });
  });

  it('defaults volumes by source', () => {
    const p = created(
      pod({
        containers: [{ name: 'c', image: 'i:1' }],
        volumes: [
          { name: 'scratch' },
          { name: 's', secret: { secretName: 'x' } },
          { name: 'cm', configMap: { name: 'x', defaultMode: 0o400 } },
          { name: 'h', hostPath: { path: '/data' } },
          { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          { name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
          {
            name: 'e',
            ephemeral: {
              volumeClaimTemplate: {
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } },
              },
            },
          },
        ],
      }),
    );
    assert.deepStrictEqual(spec(p).volumes, [
      { name: 'scratch', emptyDir: {} },
      { name: 's', secret: { secretName: 'x', defaultMode: 420 } },
      { name: 'cm', configMap: { name: 'x', defaultMode: 256 } },
      { name: 'h', hostPath: { path: '/data', type: '' } },
      {
        name: 'd',
        downwardAPI: {
          items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }],
          defaultMode: 420,
        },
      },
      {
        name: 't',
        projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 },
      },
      {
        name: 'e',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { creationTimestamp: null },
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
              volumeMode: 'Filesystem',
            },
          },
        },
      },
    ]);
  });

  it('copies limits into missing requests and canonicalizes both', () => {
    const p = created(
      pod({
        containers: [
          {
            name: 'c',
            image: 'i:1',
            resources: { limits: { cpu: 0.5, memory: '128974848' }, requests: { memory: '0.1Gi' } },
          },
        ],
      }),
    );
    assert.deepStrictEqual(container(p).resources, {
      limits: { cpu: '500m', memory: '128974848' },
      requests: { cpu: '500m', memory: '107374182400m' },
    });
    assert.deepStrictEqual(p.status, { phase: 'Pending', qosClass: 'Burstable' });
  });

  it('does not touch explicit tolerations that already cover the defaults', () => {
    const p = created(pod({ containers: [{ name: 'c', image: 'i:1' }], tolerations: [{ operator: 'Exists' }] }));
    assert.deepStrictEqual(spec(p).tolerations, [{ operator: 'Exists' }]);
    const q = created(
      pod({
        containers: [{ name: 'c', image: 'i:1' }],
        tolerations: [
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
        ],
      }),
    );
    assert.deepStrictEqual(spec(q).tolerations, [
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  it('reads the deprecated serviceAccount field and mirrors serviceAccountName into it', () => {
    const p = created(pod({ containers: [{ name: 'c', image: 'i:1' }], serviceAccount: 'builder' }));
    assert.equal(spec(p).serviceAccountName, 'builder');
    assert.equal(spec(p).serviceAccount, 'builder');
    const mirror = created(
      pod(
        { containers: [{ name: 'c', image: 'i:1' }] },
        { name: 'm', annotations: { 'kubernetes.io/config.mirror': 'x' } },
      ),
    );
    assert.equal(spec(mirror).serviceAccountName, undefined);
    assert.equal(spec(mirror).serviceAccount, undefined);
  });

  it('resolves priority from system and looked-up PriorityClasses', () => {
    const sys = created(pod({ containers: [{ name: 'c', image: 'i:1' }], priorityClassName: 'system-node-critical' }));
    assert.equal(spec(sys).priority, 2000001000);
    const p = pod({ containers: [{ name: 'c', image: 'i:1' }], priorityClassName: 'batch' });
    applyDefaults('', 'Pod', p, 'create', {
      priorityClass: (n) => (n === 'batch' ? { name: n, value: 100, preemptionPolicy: 'Never' } : undefined),
    });
    assert.equal(spec(p).priority, 100);
    assert.equal(spec(p).preemptionPolicy, 'Never');
  });

  it('refuses what the Priority admission plugin refuses', () => {
    const missing = pod({ containers: [{ name: 'c', image: 'i:1' }], priorityClassName: 'nope' });
    assert.throws(
      () => applyDefaults('', 'Pod', missing, 'create', { priorityClass: () => undefined }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 403 &&
        e.message === 'pods "p" is forbidden: no PriorityClass with name nope was found',
    );
    const explicit = pod({ containers: [{ name: 'c', image: 'i:1' }], priority: 7 });
    assert.throws(
      () => applyDefaults('', 'Pod', explicit, 'create'),
      (e: unknown) =>
        e instanceof StatusError &&
        e.message ===
          'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
  });

  it('on update carries priority over from the stored pod and re-adds default tolerations', () => {
    const old = created(pod({ containers: [{ name: 'c', image: 'i:1' }] }));
    const next = pod({ containers: [{ name: 'c', image: 'i:2' }] });
    applyDefaults('', 'Pod', next, 'update', { old });
    assert.equal(spec(next).priority, 0);
    assert.equal(spec(next).preemptionPolicy, 'PreemptLowerPriority');
    assert.equal((spec(next).tolerations as unknown[]).length, 2);
    assert.equal(spec(next).serviceAccountName, undefined, 'ServiceAccount admission runs on create only');
    assert.equal(next.status, undefined, 'status on update is the strategy’s business');
  });

  it('sets hostPort from containerPort on host-network pods only', () => {
    const p = created(
      pod({ hostNetwork: true, containers: [{ name: 'c', image: 'i:1', ports: [{ containerPort: 8080 }] }] }),
    );
    assert.equal((container(p).ports as JsonObject[])[0].hostPort, 8080);
  });

  it('adds the SchedulingGated condition to gated pods', () => {
    const p = created(
      pod({ containers: [{ name: 'c', image: 'i:1' }], schedulingGates: [{ name: 'example.com/gate' }] }),
    );
    assert.deepStrictEqual(p.status, {
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: '2024-05-01T10:00:00Z',
          reason: 'SchedulingGated',
          message: 'Scheduling is blocked due to non-empty scheduling gates',
        },
      ],
    });
  });

  it('replaces a client-written status on create', () => {
    const p = pod({ containers: [{ name: 'c', image: 'i:1' }] });
    p.status = { phase: 'Running', podIP: '10.0.0.1' };
    created(p);
    assert.deepStrictEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });
});

describe('QoS class', () => {
  const cases: [string, JsonObject[], JsonObject[] | undefined, string][] = [
    ['no resources', [{}], undefined, 'BestEffort'],
    ['zero requests', [{ requests: { cpu: '0' } }], undefined, 'BestEffort'],
    ['only storage', [{ limits: { 'ephemeral-storage': '1Gi' } }], undefined, 'BestEffort'],
    ['requests only', [{ requests: { cpu: '100m' } }], undefined, 'Burstable'],
    [
      'equal cpu and memory',
      [{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1000m', memory: '1024Mi' } }],
      undefined,
      'Guaranteed',
    ],
    ['limits only on cpu', [{ requests: { cpu: '1' }, limits: { cpu: '1' } }], undefined, 'Burstable'],
    [
      'unequal',
      [{ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }],
      undefined,
      'Burstable',
    ],
    [
      'init container without limits',
      [{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }],
      [{ requests: { cpu: '1' } }],
      'Burstable',
    ],
  ];
  for (const [name, containers, inits, want] of cases) {
    it(`${name} → ${want}`, () => {
      const s: JsonObject = { containers: containers.map((r) => ({ name: 'c', resources: r })) };
      if (inits) s.initContainers = inits.map((r) => ({ name: 'i', resources: r }));
      assert.equal(computeQosClass(s), want);
    });
  }

  it('counts limits as requests on a created Pod', () => {
    const p = created(
      pod({ containers: [{ name: 'c', image: 'i:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }),
    );
    assert.equal((p.status as JsonObject).qosClass, 'Guaranteed');
  });
});
