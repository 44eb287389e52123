import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventNamer, newEvent, objectReference } from '../../../src/apimachinery/events/index.ts';

const AT = Date.UTC(2024, 4, 1, 10, 0, 7, 123);

test('EventNamer: `<object>.<unix nanos in hex>`, never the same name twice', () => {
  const names = new EventNamer();
  const first = names.name('web-1', AT);
  assert.equal(first, `web-1.${(BigInt(AT) * 1_000_000n).toString(16)}`);
  const second = names.name('web-1', AT);
  assert.equal(second, `web-1.${(BigInt(AT) * 1_000_000n + 1n).toString(16)}`);
  // A clock that steps back still yields a later name.
  assert.notEqual(names.name('web-1', AT - 5), second);
  assert.equal(names.name('web-1', AT + 1), `web-1.${(BigInt(AT + 1) * 1_000_000n).toString(16)}`);
});

test('objectReference copies identity fields that are set, and the field path', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '42', labels: { a: 'b' } },
  };
  assert.deepEqual(objectReference(pod, 'spec.containers{app}'), {
    apiVersion: 'v1',
    kind: 'Pod',
    name: 'web-1',
    namespace: 'shop',
    uid: 'u-1',
    resourceVersion: '42',
    fieldPath: 'spec.containers{app}',
  });
  assert.deepEqual(objectReference({ metadata: { name: 'n1' } }), { apiVersion: '', kind: '', name: 'n1' });
});

test('newEvent: a first occurrence in the object namespace, "default" for cluster-scoped objects', () => {
  const involvedObject = objectReference({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'shop' },
  });
  const ev = newEvent(
    {
      involvedObject,
      type: 'Warning',
      reason: 'FailedScheduling',
      message: '0/3 nodes are available',
      source: { component: 'default-scheduler' },
      reportingInstance: 'default-scheduler-peerpods',
      action: 'Scheduling',
    },
    'web-1.abc',
    AT,
  );
  assert.deepEqual(ev, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'web-1.abc', namespace: 'shop' },
    involvedObject,
    reason: 'FailedScheduling',
    message: '0/3 nodes are available',
    type: 'Warning',
    source: { component: 'default-scheduler' },
    firstTimestamp: '2024-05-01T10:00:07Z',
    lastTimestamp: '2024-05-01T10:00:07Z',
    count: 1,
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler-peerpods',
    action: 'Scheduling',
  });
  const node = newEvent(
    {
      involvedObject: objectReference({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }),
      type: 'Normal',
      reason: 'NodeReady',
      message: 'ready',
      source: { component: 'kubelet', host: 'n1' },
      reportingInstance: 'n1',
    },
    'n1.1',
    AT,
  );
  assert.equal(node.metadata.namespace, 'default');
  assert.equal('action' in node, false);
  assert.equal('related' in node, false);
});
