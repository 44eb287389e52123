// Strategic merge patches kube-apiserver rejects, with its messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch, builtinSchemaInfo } from '../../../../src/kube/patch/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import type { ExpectedStatus } from '../status-assert.ts';
import { NOT_APPLICABLE, assertStatus, badRequest } from '../status-assert.ts';

const pod = (): JsonObject => ({
  metadata: { name: 'p', finalizers: ['a'] },
  spec: {
    containers: [
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
      { name: 'sidecar', image: 'proxy:1' },
    ],
  },
});

const containers = (list: unknown): JsonObject => ({ spec: { containers: list } }) as JsonObject;

const cases: { name: string; patch: unknown; want: ExpectedStatus }[] = [
  {
    name: 'a body that is a list',
    patch: [{ op: 'add' }],
    want: badRequest('json: cannot unmarshal array into Go value of type map[string]interface {}'),
  },
  {
    name: 'a body that is a string',
    patch: 'x',
    want: badRequest('json: cannot unmarshal string into Go value of type map[string]interface {}'),
  },
  { name: 'no body', patch: undefined, want: badRequest('unexpected end of JSON input') },
  {
    name: '$patch: merge on a map',
    patch: { spec: { $patch: 'merge' } },
    want: badRequest('unknown patch type: merge in map: map[$patch:merge]'),
  },
  {
    name: 'an unknown $patch on a list item',
    patch: containers([{ name: 'app', $patch: 'remove' }]),
    want: badRequest('unknown patch type: remove in map: map[$patch:remove name:app]'),
  },
  {
    name: '$patch: merge on a list item',
    patch: containers([{ name: 'app', $patch: 'merge' }]),
    want: badRequest('merging lists cannot yet be specified in the patch'),
  },
  {
    name: '$patch: delete without the merge key',
    patch: containers([{ $patch: 'delete', image: 'app:1' }]),
    want: badRequest('map: map[$patch:delete image:app:1] does not contain declared merge key: name'),
  },
  {
    name: 'a list item without the merge key',
    patch: containers([{ image: 'x' }]),
    want: badRequest('map: map[image:x] does not contain declared merge key: name'),
  },
  {
    name: '$retainKeys that is not a list',
    patch: { spec: { $retainKeys: 'containers' } },
    want: badRequest('invalid patch format of retainKeys'),
  },
  {
    name: '$retainKeys that does not list a key the patch sets',
    patch: { spec: { $retainKeys: ['containers'], nodeName: 'n1' } },
    want: badRequest('invalid patch format of retainKeys'),
  },
  {
    name: '$setElementOrder without a field name',
    patch: { spec: { $setElementOrder: [] } },
    want: badRequest('invalid patch format of setElementOrder list'),
  },
  {
    name: '$deleteFromPrimitiveList without a field name',
    patch: { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } },
    want: badRequest('invalid patch format of primitive list'),
  },
  {
    name: '$setElementOrder that is not a list',
    patch: { spec: { '$setElementOrder/containers': 'app' } },
    want: badRequest('expected a []interface {}, but received a string'),
  },
  {
    name: '$setElementOrder that contradicts the patch list',
    patch: {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
        containers: [{ name: 'sidecar' }, { name: 'app' }],
      },
    },
    want: badRequest(
      "the order in patch list:\n[map[name:sidecar] map[name:app]]\n doesn't match $setElementOrder list:\n[map[name:app] map[name:sidecar]]",
    ),
  },
  {
    name: 'a merge list mixing item types',
    patch: { metadata: { finalizers: [1] } },
    want: badRequest('list element types are not identical: [[a] [1]]'),
  },
  {
    name: 'a merge list of maps given primitives',
    patch: containers(['app']),
    want: badRequest(
      'list element types are not identical: [[map[env:[map[name:A value:1]] image:app:1 name:app] map[image:proxy:1 name:sidecar]] [app]]',
    ),
  },
  {
    name: 'a primitive merge list given maps',
    patch: { metadata: { finalizers: [{ name: 'a' }] } },
    want: badRequest('list element types are not identical: [[a] [map[name:a]]]'),
  },
];

for (const c of cases) {
  test(`strategic merge patch: ${c.name} is rejected`, () => {
    assertStatus(() => applyStrategicMergePatch(pod(), c.patch, builtinSchemaInfo('', 'Pod')), c.want);
  });
}

test('strategic merge patch: a list of lists is the generic 422, its reason kept for logs', () => {
  const err = assertStatus(
    () =>
      applyStrategicMergePatch(
        { metadata: { finalizers: [['a']] } },
        { metadata: { finalizers: [['b']] } },
        builtinSchemaInfo('', 'Pod'),
      ),
    NOT_APPLICABLE,
  );
  assert.equal((err.cause as Error).message, 'lists of lists are not supported');
});
