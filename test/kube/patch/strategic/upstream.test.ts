// Cases from k8s.io/apimachinery's strategicpatch tests (patch_test.go, v0.36), run against the
// same test type, MergeItem: its fields nest recursively, so list kinds depend on the field name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from '../../../../src/kube/patch/index.ts';
import type { SchemaInfo } from '../../../../src/kube/patch/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';

const mergeItem: SchemaInfo = {
  listKind: (path) => {
    switch (path[path.length - 1]) {
      case 'mergingList':
      case 'retainKeysMergingList':
        return { type: 'map', keys: ['name'] };
      case 'mergingIntList':
        return { type: 'set' };
      default:
        return undefined;
    }
  },
  isAtomicMap: (path) => path[path.length - 1] === 'replacingItem',
};

const cases: { name: string; original: JsonObject; patch: JsonObject; want: JsonObject }[] = [
  {
    name: 'unique scalars when merging lists',
    original: { mergingIntList: [1, 2] },
    patch: { mergingIntList: [2, 3] },
    want: { mergingIntList: [1, 2, 3] },
  },
  {
    name: 'delete map from nested map',
    original: { simpleMap: { key1: 1, key2: 1 } },
    patch: { simpleMap: { $patch: 'delete' } },
    want: { simpleMap: {} },
  },
  {
    name: 'delete all items from merging list',
    original: { mergingList: [{ name: 1 }, { name: 2 }] },
    patch: { mergingList: [{ $patch: 'replace' }] },
    want: { mergingList: [] },
  },
  {
    name: 'merge empty merging lists',
    original: { mergingList: [] },
    patch: { mergingList: [] },
    want: { mergingList: [] },
  },
  { name: 'delete all keys from map', original: { name: 1, value: 1 }, patch: { $patch: 'replace' }, want: {} },
  {
    name: 'add key and delete all keys from map',
    original: { name: 1, value: 1 },
    patch: { other: 'a', $patch: 'replace' },
    want: { other: 'a' },
  },
  {
    name: 'delete all duplicate entries in a merging list',
    original: { mergingList: [{ name: 1 }, { name: 1 }, { name: 2, value: 'a' }, { name: 3 }, { name: 3 }] },
    patch: {
      mergingList: [
        { name: 1, $patch: 'delete' },
        { name: 3, $patch: 'delete' },
      ],
    },
    want: { mergingList: [{ name: 2, value: 'a' }] },
  },
  {
    name: 'retainKeys map can delete a field when no retainKeys directive present',
    original: { retainKeysMap: { name: 'foo', value: 'a' } },
    patch: { retainKeysMap: { value: null } },
    want: { retainKeysMap: { name: 'foo' } },
  },
  {
    name: 'retainKeys list can change a field when no retainKeys directive present',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
    patch: { retainKeysMergingList: [{ name: 'foo', value: 'b' }] },
    want: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'b' }] },
  },
  {
    name: 'preserve the order from the patch in a merging list',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'b' }, { name: 3 }] },
    patch: {
      mergingList: [
        { name: 3, value: 'c' },
        { name: 1, value: 'a' },
        { name: 2, other: 'x' },
      ],
    },
    want: {
      mergingList: [
        { name: 3, value: 'c' },
        { name: 1, value: 'a' },
        { name: 2, value: 'b', other: 'x' },
      ],
    },
  },
  {
    name: 'preserve the order from the patch in a merging list 2',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'b' }, { name: 3 }] },
    patch: {
      mergingList: [
        { name: 3, value: 'c' },
        { name: 1, value: 'a' },
      ],
    },
    want: {
      mergingList: [
        { name: 2, value: 'b' },
        { name: 3, value: 'c' },
        { name: 1, value: 'a' },
      ],
    },
  },
  {
    name: 'preserve the order from the patch in a merging int list',
    original: { mergingIntList: [1, 2, 3] },
    patch: { mergingIntList: [3, 1] },
    want: { mergingIntList: [2, 3, 1] },
  },
  {
    name: '$setElementOrder contains item that is not present in the list to be merged',
    original: { mergingList: [{ name: 1 }, { name: 3 }] },
    patch: {
      '$setElementOrder/mergingList': [{ name: 3 }, { name: 2 }, { name: 1 }],
      mergingList: [
        { name: 3, value: 3 },
        { name: 1, value: 1 },
      ],
    },
    want: {
      mergingList: [
        { name: 3, value: 3 },
        { name: 1, value: 1 },
      ],
    },
  },
  {
    name: '$setElementOrder contains item that is not present in the int list to be merged',
    original: { mergingIntList: [1, 3] },
    patch: { '$setElementOrder/mergingIntList': [3, 2, 1] },
    want: { mergingIntList: [3, 1] },
  },
  {
    name: '$deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list',
    original: { mergingIntList: [1, 2] },
    patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    want: { mergingIntList: [1, 2] },
  },
  {
    name: '$deleteFromPrimitiveList on empty primitive list should not add the item to the list',
    original: { mergingIntList: null },
    patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    want: { mergingIntList: null },
  },
  {
    name: '$deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list',
    original: { foo: ['bar'] },
    patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    want: { foo: ['bar'] },
  },
  {
    name: '$deleteFromPrimitiveList should delete item from a list without merge patch strategy',
    original: { nonMergingIntList: [1, 2, 3] },
    patch: { '$deleteFromPrimitiveList/nonMergingIntList': [2] },
    want: { nonMergingIntList: [1, 3] },
  },
  {
    name: 'delete items in lists of scalars',
    original: { mergingIntList: [1, 2, 3, 4] },
    patch: { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    want: { mergingIntList: [1, 2, 4] },
  },
  {
    name: 'add and delete items in lists of scalars',
    original: { mergingIntList: [1, 2, 3] },
    patch: {
      '$setElementOrder/mergingIntList': [1, 2, 4],
      '$deleteFromPrimitiveList/mergingIntList': [3],
      mergingIntList: [4],
    },
    want: { mergingIntList: [1, 2, 4] },
  },
  {
    name: 'merge lists of maps',
    original: {
      mergingList: [
        { name: 1, other: 'a' },
        { name: 2, value: 2, other: 'b' },
      ],
    },
    patch: {
      '$setElementOrder/mergingList': [{ name: 4 }, { name: 1 }, { name: 2 }, { name: 3 }],
      mergingList: [
        { name: 4, value: 4 },
        { name: 3, value: 3 },
      ],
    },
    want: {
      mergingList: [
        { name: 4, value: 4 },
        { name: 1, other: 'a' },
        { name: 2, value: 2, other: 'b' },
        { name: 3, value: 3 },
      ],
    },
  },
  {
    name: 'nested merging lists merge by key at every level',
    original: {
      mergingList: [{ name: 1, mergingList: [{ name: 'a', value: 1 }], nonMergingList: [{ name: 'x' }] }, { name: 2 }],
    },
    patch: { mergingList: [{ name: 1, mergingList: [{ name: 'b', value: 2 }], nonMergingList: [{ name: 'y' }] }] },
    want: {
      mergingList: [
        {
          name: 1,
          mergingList: [
            { name: 'b', value: 2 },
            { name: 'a', value: 1 },
          ],
          nonMergingList: [{ name: 'y' }],
        },
        { name: 2 },
      ],
    },
  },
  {
    name: 'a replace-strategy map is replaced whole',
    original: { replacingItem: { a: 1, b: { c: 2 } } },
    patch: { replacingItem: { b: { d: 3 } } },
    want: { replacingItem: { b: { d: 3 } } },
  },
];

for (const c of cases) {
  test(`strategic merge patch (upstream): ${c.name}`, () => {
    assert.deepEqual(applyStrategicMergePatch(c.original, c.patch, mergeItem), c.want);
  });
}
