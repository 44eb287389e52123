import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { isInvalid } from '../../../src/runtime/client/errors.ts';
import {
  AlreadyOwnedError,
  findCondition,
  getControllerOf,
  isConditionTrue,
  isControlledBy,
  removeOwnerReference,
  setCondition,
  setControllerReference,
  setOwnerReference,
  setStatusCondition,
} from '../../../src/runtime/helpers/index.ts';
import type { Condition } from '../../../src/runtime/helpers/index.ts';

const owner = (name: string, uid: string, ns: string | null = 'd'): KubeObject => ({
  apiVersion: 'examples.peerpods.io/v1alpha1',
  kind: 'PodSet',
  metadata: { name, uid, ...(ns ? { namespace: ns } : {}) },
});

describe('owner references', () => {
  it('sets the controller reference with blockOwnerDeletion and is idempotent', () => {
    const pod: KubeObject = { metadata: { name: 'p', namespace: 'd' } };
    setControllerReference(owner('set', 'u1'), pod);
    setControllerReference(owner('set', 'u1'), pod);
    assert.deepEqual(pod.metadata.ownerReferences, [
      {
        apiVersion: 'examples.peerpods.io/v1alpha1',
        kind: 'PodSet',
        name: 'set',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(isControlledBy(pod, owner('set', 'u1')), true);
    assert.equal(getControllerOf(pod)?.name, 'set');
  });

  it('refuses a second controller with a 422-like AlreadyOwnedError', () => {
    const pod: KubeObject = { metadata: { name: 'p', namespace: 'd' } };
    setControllerReference(owner('a', 'u1'), pod);
    assert.throws(
      () => setControllerReference(owner('b', 'u2'), pod),
      (e: unknown) =>
        e instanceof AlreadyOwnedError && isInvalid(e) && e.code === 422 && /already owned/.test(e.message),
    );
    setOwnerReference(owner('b', 'u2'), pod);
    assert.equal(pod.metadata.ownerReferences?.length, 2);
    assert.equal(removeOwnerReference(owner('b', 'u2'), pod), true);
    assert.equal(pod.metadata.ownerReferences?.length, 1);
  });

  it('rejects cross-namespace and namespaced-owns-cluster-scoped references', () => {
    assert.throws(
      () => setControllerReference(owner('a', 'u1', 'x'), { metadata: { name: 'p', namespace: 'y' } }),
      /cross-namespace/,
    );
    assert.throws(() => setControllerReference(owner('a', 'u1'), { metadata: { name: 'n' } }), /cluster-scoped/);
    const node: KubeObject = { metadata: { name: 'n' } };
    setControllerReference(owner('c', 'u3', null), node);
    assert.equal(getControllerOf(node)?.uid, 'u3');
    assert.throws(() => setControllerReference({ metadata: { name: 'x' } }, node), /uid/);
  });
});

describe('conditions', () => {
  const t0 = Date.UTC(2024, 0, 1, 0, 0, 0);
  it('keeps lastTransitionTime unless the status changes', () => {
    const cs: Condition[] = [];
    assert.equal(setCondition(cs, { type: 'Ready', status: 'False', reason: 'Scaling' }, t0), true);
    assert.equal(cs[0].lastTransitionTime, '2024-01-01T00:00:00Z');
    assert.equal(setCondition(cs, { type: 'Ready', status: 'False', reason: 'Scaling' }, t0 + 60_000), false);
    assert.equal(
      setCondition(cs, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm' }, t0 + 60_000),
      true,
    );
    assert.equal(cs[0].lastTransitionTime, '2024-01-01T00:00:00Z', 'reason/message changes keep the time');
    assert.equal(setCondition(cs, { type: 'Ready', status: 'True', reason: 'Ready' }, t0 + 120_000), true);
    assert.equal(cs[0].lastTransitionTime, '2024-01-01T00:02:00Z');
    assert.equal(isConditionTrue(cs, 'Ready'), true);
  });

  it('setStatusCondition records observedGeneration from the object', () => {
    const o: KubeObject = { metadata: { name: 'a', generation: 7 } };
    assert.equal(setStatusCondition(o, { type: 'Ready', status: 'True', reason: 'Done' }, t0), true);
    const c = findCondition((o.status as { conditions: Condition[] }).conditions, 'Ready');
    assert.equal(c?.observedGeneration, 7);
    o.metadata.generation = 8;
    assert.equal(
      setStatusCondition(o, { type: 'Ready', status: 'True', reason: 'Done' }, t0 + 1000),
      true,
      'new generation is a change',
    );
    assert.equal(c?.lastTransitionTime, '2024-01-01T00:00:00Z');
  });
});
