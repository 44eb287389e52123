// Unknown fields of built-in kinds: the basis of fieldValidation=Strict/Warn for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneUnknownFields, unknownFields } from '../../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

const deployment = (): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: '0b6f7c1e-0000-4000-8000-000000000000',
    resourceVersion: '12',
    generation: 2,
    creationTimestamp: '2025-01-01T00:00:00Z',
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '2' },
    finalizers: ['example.com/x'],
    ownerReferences: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', controller: true, blockOwnerDeletion: true },
    ],
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    template: {
      metadata: { labels: { app: 'web' }, creationTimestamp: null },
      spec: {
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        securityContext: { runAsNonRoot: true, seLinuxOptions: { level: 's0' } },
        volumes: [
          { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420, items: [{ key: 'a', path: 'a' }] } },
          { name: 'nfs', nfs: { server: 'x', path: '/y' } },
        ],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            imagePullPolicy: 'IfNotPresent',
            ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
              { name: 'C', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } },
            ],
            envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'X_' }],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: 0.1 } },
            volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
            livenessProbe: {
              httpGet: { path: '/', port: 'http', scheme: 'HTTP' },
              periodSeconds: 10,
              failureThreshold: 3,
            },
            readinessProbe: { exec: { command: ['true'] } },
            lifecycle: { preStop: { sleep: { seconds: 5 } } },
            securityContext: { capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
      },
    },
  },
  status: {
    observedGeneration: 2,
    replicas: 2,
    conditions: [{ type: 'Available', status: 'True', anything: 1 }],
    somethingNew: true,
  },
});

test('a complete, realistic Deployment has no unknown fields', () => {
  assert.deepEqual(unknownFields('apps', 'Deployment', deployment()), []);
});

test('unknown fields are reported with kube strict-decoding paths', () => {
  const d = deployment();
  (d as { replica?: number }).replica = 1;
  const spec = d.spec as JsonObject;
  spec.replica = 3;
  const container = (((spec.template as JsonObject).spec as JsonObject).containers as JsonObject[])[0];
  container.imagee = 'x';
  (container.ports as JsonObject[])[0].port = 80;
  (d.metadata as JsonObject).labelz = {};
  assert.deepEqual(unknownFields('apps', 'Deployment', d), [
    'metadata.labelz',
    'spec.template.spec.containers[0].ports[0].port',
    'spec.template.spec.containers[0].imagee',
    'spec.replica',
    'replica',
  ]);
});

test('ConfigMap, Secret, Service, Namespace and Node are checked too', () => {
  assert.deepEqual(
    unknownFields('', 'ConfigMap', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      data: { x: 'y' },
      datta: {},
    }),
    ['datta'],
  );
  assert.deepEqual(unknownFields('', 'Secret', { stringData: { a: 'b' }, type: 'Opaque', strinData: {} }), [
    'strinData',
  ]);
  assert.deepEqual(
    unknownFields('', 'Service', {
      spec: { ports: [{ port: 80, targetPort: 'http', nodeport: 1 }], selector: { a: 'b' } },
    }),
    ['spec.ports[0].nodeport'],
  );
  assert.deepEqual(
    unknownFields('', 'Namespace', { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active', extra: 1 } }),
    ['status.extra'],
  );
  assert.deepEqual(
    unknownFields('', 'Node', {
      spec: { unschedulable: true, taint: [] },
      status: { capacity: { cpu: '4' }, anything: {} },
    }),
    ['spec.taint'],
  );
});

test('open objects, permissive kinds and custom resources report nothing', () => {
  assert.deepEqual(
    unknownFields('', 'Pod', {
      spec: { containers: [{ name: 'a', securityContext: { futureField: 1 } }] },
      status: { anything: 1 },
    }),
    [],
  );
  assert.deepEqual(
    unknownFields('coordination.k8s.io', 'Lease', { spec: { holderIdentity: 'x', whatever: 1 }, other: 2 }),
    [],
  );
  assert.deepEqual(unknownFields('example.com', 'Widget', { spec: { x: 1 }, other: 2 }), []);
});

test('null values and wrong types are left to validation', () => {
  assert.deepEqual(unknownFields('', 'ConfigMap', { metadata: null, data: 'nope' } as unknown as JsonObject), []);
  assert.deepEqual(unknownFields('', 'Pod', { spec: { containers: 'nope' } }), []);
});

test('pruneUnknownFields removes what it reports', () => {
  const cm: JsonObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', bogus: 1 },
    data: { k: 'v' },
    datta: {},
  };
  assert.deepEqual(pruneUnknownFields('', 'ConfigMap', cm), ['metadata.bogus', 'datta']);
  assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
});
