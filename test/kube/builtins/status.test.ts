import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyDefaults,
  hasGeneration,
  hasStatusSubresource,
  prepareForUpdate,
} from '../../../src/kube/builtins/index.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';

const template = (image = 'nginx:1'): JsonObject => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image }] },
});

function stored(group: string, kind: string, o: JsonObject, generation = 3): JsonObject {
  applyDefaults(group, kind, o, 'create');
  (o.metadata as JsonObject).generation = generation;
  return o;
}

const meta = (o: JsonObject): JsonObject => o.metadata as JsonObject;

describe('main endpoint vs /status', () => {
  const deployment = (): JsonObject =>
    stored('apps', 'Deployment', {
      metadata: { name: 'd', labels: { a: '1' } },
      spec: { selector: { matchLabels: { app: 'web' } }, template: template() },
    });

  it('the main endpoint keeps the stored status', () => {
    const old = deployment();
    (old.status as JsonObject).replicas = 2;
    const next = structuredClone(old);
    next.status = { replicas: 99 };
    (next.spec as JsonObject).replicas = 4;
    prepareForUpdate('apps', 'Deployment', next, old);
    assert.deepStrictEqual(next.status, { replicas: 2 });
    assert.equal((next.spec as JsonObject).replicas, 4);
  });

  it('/status keeps the stored spec (and, for Deployments, labels) but takes other metadata', () => {
    const old = deployment();
    const next = structuredClone(old);
    next.status = { replicas: 1, readyReplicas: 1 };
    (next.spec as JsonObject).replicas = 7;
    meta(next).labels = { a: '2' };
    meta(next).annotations = { note: 'x' };
    prepareForUpdate('apps', 'Deployment', next, old, 'status');
    assert.deepStrictEqual(next.status, { replicas: 1, readyReplicas: 1 });
    assert.deepStrictEqual(next.spec, old.spec);
    assert.deepStrictEqual(meta(next).labels, { a: '1' });
    assert.deepStrictEqual(meta(next).annotations, { note: 'x' });
    assert.equal(meta(next).generation, 3);
  });

  it('Node status is written only through /status; the main endpoint ignores it', () => {
    const old = stored('', 'Node', { metadata: { name: 'n' }, status: { capacity: { cpu: '4' } } }, 0);
    delete meta(old).generation;
    const viaMain = structuredClone(old);
    (viaMain.status as JsonObject).capacity = { cpu: '8' };
    (viaMain.spec as JsonObject).unschedulable = true;
    prepareForUpdate('', 'Node', viaMain, old);
    assert.deepStrictEqual((viaMain.status as JsonObject).capacity, { cpu: '4' });
    assert.equal((viaMain.spec as JsonObject).unschedulable, true);
    const viaStatus = structuredClone(old);
    (viaStatus.status as JsonObject).capacity = { cpu: '4', 'example.com/foo': '4' };
    (viaStatus.spec as JsonObject).unschedulable = true;
    prepareForUpdate('', 'Node', viaStatus, old, 'status');
    assert.deepStrictEqual((viaStatus.status as JsonObject).capacity, { cpu: '4', 'example.com/foo': '4' });
    assert.equal((viaStatus.spec as JsonObject).unschedulable, undefined);
    assert.equal(meta(viaStatus).generation, undefined);
  });

  it('Namespace finalizers change only through /finalize', () => {
    const old = stored('', 'Namespace', { metadata: { name: 'ns' } }, 0);
    delete meta(old).generation;
    const main = structuredClone(old);
    main.spec = { finalizers: [] };
    main.status = { phase: 'Terminating' };
    prepareForUpdate('', 'Namespace', main, old);
    assert.deepStrictEqual(main.spec, { finalizers: ['kubernetes'] });
    assert.deepStrictEqual(main.status, { phase: 'Active' });
    const fin = structuredClone(old);
    fin.spec = { finalizers: [] };
    fin.status = { phase: 'Terminating' };
    prepareForUpdate('', 'Namespace', fin, old, 'finalize');
    assert.deepStrictEqual(fin.spec, { finalizers: [] });
    assert.deepStrictEqual(fin.status, { phase: 'Active' });
  });

  it('Pod /status keeps ownerReferences, QoS and observed generations', () => {
    const old = stored(
      '',
      'Pod',
      { metadata: { name: 'p', ownerReferences: [{ uid: 'u' }] }, spec: { containers: [{ name: 'c', image: 'i:1' }] } },
      2,
    );
    (old.status as JsonObject).conditions = [{ type: 'Ready', status: 'False', observedGeneration: 2 }];
    (old.status as JsonObject).observedGeneration = 2;
    const next = structuredClone(old);
    meta(next).ownerReferences = [];
    next.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    (next.spec as JsonObject).nodeName = 'n1';
    prepareForUpdate('', 'Pod', next, old, 'status');
    assert.deepStrictEqual(meta(next).ownerReferences, [{ uid: 'u' }]);
    assert.deepStrictEqual(next.status, {
      phase: 'Running',
      qosClass: 'BestEffort',
      observedGeneration: 2,
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }],
    });
    assert.equal((next.spec as JsonObject).nodeName, undefined);
  });

  it('kinds without a status subresource are left alone', () => {
    const old: JsonObject = { metadata: { name: 'c' }, data: { a: '1' } };
    const next: JsonObject = { metadata: { name: 'c' }, data: { a: '2' } };
    prepareForUpdate('', 'ConfigMap', next, old);
    assert.deepStrictEqual(next, { metadata: { name: 'c' }, data: { a: '2' } });
    assert.equal(hasStatusSubresource('', 'ConfigMap'), false);
    assert.equal(hasStatusSubresource('apps', 'StatefulSet'), true);
  });
});

describe('generation', () => {
  const cases: [string, string, string, () => JsonObject, (o: JsonObject) => void, number][] = [
    [
      'Deployment spec change',
      'apps',
      'Deployment',
      () => ({ spec: { template: template() } }),
      (o) => ((o.spec as JsonObject).replicas = 5),
      4,
    ],
    [
      'Deployment annotation change',
      'apps',
      'Deployment',
      () => ({ spec: { template: template() } }),
      (o) => (meta(o).annotations = { a: 'b' }),
      4,
    ],
    [
      'Deployment label change',
      'apps',
      'Deployment',
      () => ({ spec: { template: template() } }),
      (o) => (meta(o).labels = { a: 'b' }),
      3,
    ],
    [
      'ReplicaSet annotation change',
      'apps',
      'ReplicaSet',
      () => ({ spec: { template: template() } }),
      (o) => (meta(o).annotations = { a: 'b' }),
      3,
    ],
    [
      'StatefulSet spec change',
      'apps',
      'StatefulSet',
      () => ({ spec: { template: template() } }),
      (o) => ((o.spec as JsonObject).replicas = 2),
      4,
    ],
    [
      'Job spec change',
      'batch',
      'Job',
      () => ({ spec: { template: template() } }),
      (o) => ((o.spec as JsonObject).suspend = true),
      4,
    ],
    [
      'Pod spec change',
      '',
      'Pod',
      () => ({ spec: { containers: [{ name: 'c', image: 'i:1' }] } }),
      (o) => (((o.spec as JsonObject).containers as JsonObject[])[0].image = 'i:2'),
      4,
    ],
    [
      'Pod label change',
      '',
      'Pod',
      () => ({ spec: { containers: [{ name: 'c', image: 'i:1' }] } }),
      (o) => (meta(o).labels = { a: 'b' }),
      3,
    ],
    [
      'PodDisruptionBudget spec change',
      'policy',
      'PodDisruptionBudget',
      () => ({ spec: { minAvailable: 1 } }),
      (o) => ((o.spec as JsonObject).minAvailable = 2),
      4,
    ],
    [
      'Ingress spec change',
      'networking.k8s.io',
      'Ingress',
      () => ({ spec: { ingressClassName: 'a' } }),
      (o) => ((o.spec as JsonObject).ingressClassName = 'b'),
      4,
    ],
    [
      'webhook change',
      'admissionregistration.k8s.io',
      'ValidatingWebhookConfiguration',
      () => ({ webhooks: [] }),
      (o) => (o.webhooks = [{ name: 'a.b.c' }]),
      4,
    ],
    ['no-op update', 'apps', 'DaemonSet', () => ({ spec: { template: template() } }), () => undefined, 3],
  ];
  for (const [name, group, kind, make, mutate, want] of cases) {
    it(`${name} → ${want}`, () => {
      const old = stored(group, kind, { metadata: { name: 'x' }, ...make() });
      const next = structuredClone(old);
      mutate(next);
      meta(next).generation = 42; // clients cannot set it
      prepareForUpdate(group, kind, next, old);
      assert.equal(meta(next).generation, want);
    });
  }

  it('does not move on /status writes', () => {
    const old = stored('apps', 'ReplicaSet', { metadata: { name: 'x' }, spec: { template: template() } });
    const next = structuredClone(old);
    (next.spec as JsonObject).replicas = 9;
    prepareForUpdate('apps', 'ReplicaSet', next, old, 'status');
    assert.equal(meta(next).generation, 3);
  });

  it('DaemonSet template generation follows template changes only', () => {
    const old = stored('apps', 'DaemonSet', { metadata: { name: 'ds' }, spec: { template: template() } });
    const ann = (o: JsonObject): unknown =>
      (meta(o).annotations as JsonObject)['deprecated.daemonset.template.generation'];
    assert.equal(ann(old), '1');
    const newTemplate = structuredClone(old);
    (newTemplate.spec as JsonObject).template = template('nginx:2');
    applyDefaults('apps', 'DaemonSet', newTemplate, 'update');
    prepareForUpdate('apps', 'DaemonSet', newTemplate, old);
    assert.equal(ann(newTemplate), '2');
    assert.equal(meta(newTemplate).generation, 4);
    const otherSpec = structuredClone(old);
    (otherSpec.spec as JsonObject).minReadySeconds = 5;
    meta(otherSpec).annotations = {};
    prepareForUpdate('apps', 'DaemonSet', otherSpec, old);
    assert.equal(ann(otherSpec), '1');
    assert.equal(meta(otherSpec).generation, 4);
  });

  it('knows which kinds keep a generation', () => {
    const want: [string, string, boolean][] = [
      ['apps', 'Deployment', true],
      ['', 'Pod', true],
      ['batch', 'CronJob', true],
      ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration', true],
      ['', 'ConfigMap', false],
      ['', 'Service', false],
      ['', 'Namespace', false],
      ['coordination.k8s.io', 'Lease', false],
    ];
    for (const [g, k, has] of want) assert.equal(hasGeneration(g, k), has, `${g}/${k}`);
  });
});
