// The Deployment controller's arithmetic on its own: pod-template hash, maxSurge/maxUnavailable
// rounding, new ReplicaSet sizing, proportional scaling, conditions, status, and the order in
// which a ReplicaSet picks pods to delete.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeHash,
  equalIgnoreHash,
  fenceposts,
  maxUnavailable,
  newRSNewReplicas,
  proportion,
  safeEncode,
  scaledValue,
  setNewReplicaSetAnnotations,
} from '../../../../src/kube/controllers/workloads/deployment/util.ts';
import {
  calculateStatus,
  hasTimedOut,
  isComplete,
  newCondition,
  setCondition,
} from '../../../../src/kube/controllers/workloads/deployment/status.ts';
import { podsToDelete } from '../../../../src/kube/controllers/workloads/replicaset/ranking.ts';
import type { WorkloadObject } from '../../../../src/kube/controllers/workloads/common.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

function deployment(spec: JsonObject = {}, status: JsonObject = {}): WorkloadObject {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'd-uid', generation: 1 },
    spec: { replicas: 10, ...spec },
    status,
  };
}

function rs(name: string, replicas: number, status: JsonObject = {}, annotations: Record<string, string> = {}) {
  return {
    metadata: { name, uid: `${name}-uid`, creationTimestamp: '2024-01-01T00:00:00Z', annotations },
    spec: { replicas },
    status,
  } as WorkloadObject;
}

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
};

describe('pod-template hash', () => {
  test('deterministic, independent of key order, changed by the template and by collisionCount', () => {
    const h = computeHash(template);
    assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    assert.equal(computeHash(structuredClone(template)), h);
    const reordered = { spec: template.spec, metadata: template.metadata };
    assert.equal(computeHash(reordered), h);
    assert.notEqual(computeHash({ ...template, spec: { containers: [{ name: 'app', image: 'nginx:2' }] } }), h);
    assert.notEqual(computeHash(template, 1), h);
    assert.notEqual(computeHash(template, 1), computeHash(template, 2));
  });

  test('safe encoding maps digits like rand.SafeEncodeString', () => {
    assert.equal(safeEncode('0123456789'), '456789bcdf');
    assert.equal(safeEncode('0'), '4');
    assert.equal(safeEncode('9'), 'f');
  });

  test('templates are equal ignoring the pod-template-hash label', () => {
    const withHash = structuredClone(template) as JsonObject & { metadata: { labels: Record<string, string> } };
    withHash.metadata.labels['pod-template-hash'] = 'abc';
    assert.ok(equalIgnoreHash(withHash, template));
    withHash.metadata.labels.app = 'other';
    assert.ok(!equalIgnoreHash(withHash, template));
  });
});

describe('maxSurge and maxUnavailable', () => {
  test('percentages: surge rounds up, unavailable rounds down; defaults 25%/25%', () => {
    assert.equal(scaledValue('25%', 10, true), 3);
    assert.equal(scaledValue('25%', 10, false), 2);
    assert.equal(scaledValue(4, 10, false), 4);
    assert.equal(scaledValue('x', 10, false), undefined);
    assert.deepEqual(fenceposts(deployment()), [3, 2]);
    assert.deepEqual(fenceposts(deployment({ replicas: 3 })), [1, 0]);
    const both0 = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '10%' } };
    assert.deepEqual(fenceposts(deployment({ replicas: 3, strategy: both0 })), [0, 1], 'never both zero');
    assert.equal(maxUnavailable(deployment({ strategy: { type: 'Recreate' } })), 0);
    const big = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 50 } };
    assert.equal(maxUnavailable(deployment({ replicas: 5, strategy: big })), 5, 'capped at replicas');
  });

  test('a new ReplicaSet grows up to replicas + maxSurge in total', () => {
    const d = deployment({ replicas: 10 });
    const old = rs('old', 10);
    const fresh = rs('new', 0);
    assert.equal(newRSNewReplicas(d, [old, fresh], fresh), 3);
    assert.equal(newRSNewReplicas(d, [rs('old', 13), fresh], fresh), 0);
    assert.equal(newRSNewReplicas(d, [rs('old', 2), rs('new', 9)], rs('new', 9)), 10);
    assert.equal(newRSNewReplicas(deployment({ strategy: { type: 'Recreate' } }), [old, fresh], fresh), 10);
  });

  test('proportional scaling follows the max-replicas annotation', () => {
    // A 10-replica deployment (max 13) mid-rollout scaled to 20 (max 25).
    const d = deployment({ replicas: 20 });
    const a = rs('a', 8, {}, { 'deployment.kubernetes.io/max-replicas': '13' });
    const b = rs('b', 5, {}, { 'deployment.kubernetes.io/max-replicas': '13' });
    const toAdd = 25 - 13;
    const pa = proportion(a, d, toAdd, 0);
    const pb = proportion(b, d, toAdd, pa);
    assert.equal(pa, 7); // round(8 * 25 / 13) - 8
    assert.equal(pb, 5); // min(round(5 * 25 / 13) - 5, 12 - 7)
    assert.equal(proportion(rs('zero', 0), d, toAdd, 0), 0);
    assert.equal(proportion(a, deployment({ replicas: 0 }), -13, 0), -8);
  });
});

describe('conditions and status', () => {
  test('same status and reason is no change; a new reason keeps the transition time', () => {
    const status: JsonObject = {};
    const first = newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'a');
    first.lastTransitionTime = '2020-01-01T00:00:00Z';
    setCondition(status, first);
    setCondition(status, newCondition('Progressing', 'True', 'NewReplicaSetCreated', 'b'));
    assert.equal((status.conditions as JsonObject[])[0].message, 'a');
    setCondition(status, newCondition('Progressing', 'True', 'ReplicaSetUpdated', 'c'));
    assert.equal((status.conditions as JsonObject[])[0].message, 'c');
    assert.equal((status.conditions as JsonObject[])[0].lastTransitionTime, '2020-01-01T00:00:00Z');
    setCondition(status, newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', 'd'));
    assert.notEqual((status.conditions as JsonObject[])[0].lastTransitionTime, '2020-01-01T00:00:00Z');
  });

  test('status sums the replica sets; Available follows maxUnavailable', () => {
    const d = deployment({ replicas: 4 });
    const old = rs('old', 1, { replicas: 1, readyReplicas: 1, availableReplicas: 1 });
    const fresh = rs('new', 4, { replicas: 4, readyReplicas: 3, availableReplicas: 2 });
    const s = calculateStatus(d, [old, fresh], fresh);
    assert.equal(s.replicas, 5);
    assert.equal(s.updatedReplicas, 4);
    assert.equal(s.readyReplicas, 4);
    assert.equal(s.availableReplicas, 3);
    assert.equal(s.unavailableReplicas, 2);
    assert.equal(s.observedGeneration, 1);
    const available = (s.conditions as JsonObject[]).find((c) => c.type === 'Available')!;
    assert.equal(available.status, 'True'); // 3 >= 4 - 1
    const strict = deployment({ replicas: 4, strategy: { type: 'Recreate' } });
    const s2 = calculateStatus(strict, [old, fresh], fresh);
    assert.equal(
      (s2.conditions as JsonObject[]).find((c) => c.type === 'Available')!.reason,
      'MinimumReplicasUnavailable',
    );
    assert.ok(!isComplete(d, s));
    assert.ok(isComplete(d, { replicas: 4, updatedReplicas: 4, availableReplicas: 4, observedGeneration: 1 }));
    const zero = calculateStatus(deployment({ replicas: 0 }), [], undefined);
    assert.deepEqual(Object.keys(zero), ['observedGeneration', 'conditions'], 'zero counts are omitted');
  });

  test('progress deadline', () => {
    const d = deployment({ progressDeadlineSeconds: 10 });
    const at = (reason: string, t: string) => ({
      conditions: [{ ...newCondition('Progressing', 'True', reason, ''), lastUpdateTime: t }],
    });
    const now = Date.parse('2024-01-01T00:00:30Z');
    assert.ok(hasTimedOut(d, at('ReplicaSetUpdated', '2024-01-01T00:00:00Z'), now));
    assert.ok(!hasTimedOut(d, at('ReplicaSetUpdated', '2024-01-01T00:00:25Z'), now));
    assert.ok(!hasTimedOut(d, at('NewReplicaSetAvailable', '2024-01-01T00:00:00Z'), now));
    assert.ok(!hasTimedOut(deployment(), at('ReplicaSetUpdated', '2024-01-01T00:00:00Z'), now));
  });

  test('revision annotations: copied deployment annotations, raised revision with history', () => {
    const d = deployment({ replicas: 2 });
    d.metadata.annotations = {
      team: 'a',
      'deployment.kubernetes.io/revision': '9',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
    };
    const created = rs('new', 0);
    created.metadata.annotations = undefined;
    assert.ok(setNewReplicaSetAnnotations(d, created, 1, false));
    assert.deepEqual(created.metadata.annotations, {
      team: 'a',
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
    assert.ok(!setNewReplicaSetAnnotations(d, created, 1, true), 'nothing to change');
    assert.ok(setNewReplicaSetAnnotations(d, created, 4, true));
    assert.equal(created.metadata.annotations!['deployment.kubernetes.io/revision'], '4');
    assert.equal(created.metadata.annotations!['deployment.kubernetes.io/revision-history'], '1');
    assert.ok(!setNewReplicaSetAnnotations(d, created, 3, true), 'a revision is never lowered');
  });
});

describe('which pods a ReplicaSet deletes first', () => {
  const pod = (name: string, o: { node?: string; phase?: string; ready?: boolean; created?: string; cost?: string }) =>
    ({
      metadata: {
        name,
        uid: name,
        creationTimestamp: o.created ?? '2024-01-01T00:00:00Z',
        annotations: o.cost ? { 'controller.kubernetes.io/pod-deletion-cost': o.cost } : {},
      },
      spec: o.node ? { nodeName: o.node } : {},
      status: {
        phase: o.phase ?? 'Running',
        conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      },
    }) as WorkloadObject;

  test('unscheduled, pending, not ready, cheaper, doubled up, newer', () => {
    const pods = [
      pod('old-ready', { node: 'n1', created: '2024-01-01T00:00:00Z' }),
      pod('new-ready', { node: 'n2', created: '2024-01-02T00:00:00Z' }),
      pod('unready', { node: 'n1', ready: false }),
      pod('pending', { node: 'n1', phase: 'Pending', ready: false }),
      pod('unscheduled', { phase: 'Pending', ready: false }),
      pod('costly', { node: 'n3', cost: '100', created: '2024-01-03T00:00:00Z' }),
    ];
    const order = podsToDelete(pods, 6).map((p) => p.metadata.name);
    assert.deepEqual(order, ['unscheduled', 'pending', 'unready', 'old-ready', 'new-ready', 'costly']);
    assert.deepEqual(
      podsToDelete(pods, 2).map((p) => p.metadata.name),
      ['unscheduled', 'pending'],
    );
  });
});
