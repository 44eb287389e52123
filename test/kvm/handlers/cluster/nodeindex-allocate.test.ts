import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allocateNodeIndexes } from '../../../../src/kvm/handlers/cluster/nodeindex.ts';

describe('allocateNodeIndexes', () => {
  const cases: { name: string; current: Record<string, number>; ids: string[]; want: Record<string, number> }[] = [
    { name: 'empty cluster', current: {}, ids: [], want: {} },
    { name: 'new cluster: 1.. in node order', current: {}, ids: ['m1', 'w1', 'w2'], want: { m1: 1, w1: 2, w2: 3 } },
    { name: 'unchanged', current: { m1: 1, w1: 2 }, ids: ['m1', 'w1'], want: { m1: 1, w1: 2 } },
    {
      name: 'a hole is filled first: [1,2,4] → 3',
      current: { a: 1, b: 2, d: 4 },
      ids: ['a', 'b', 'd', 'e'],
      want: { a: 1, b: 2, d: 4, e: 3 },
    },
    {
      name: 'several holes, lowest first',
      current: { a: 2, b: 5 },
      ids: ['a', 'b', 'c', 'd', 'e'],
      want: { a: 2, b: 5, c: 1, d: 3, e: 4 },
    },
    { name: 'removed IDs are dropped', current: { m1: 1, w1: 2, w2: 3 }, ids: ['m1', 'w2'], want: { m1: 1, w2: 3 } },
    {
      name: 'an index freed in this call is not handed out by it (upstream: reused one loop later)',
      current: { m1: 1, w1: 2, w2: 3 },
      ids: ['m1', 'w2', 'w3'],
      want: { m1: 1, w2: 3, w3: 4 },
    },
    {
      name: 'the freed index is reused by a later call',
      current: { m1: 1, w2: 3, w3: 4 },
      ids: ['m1', 'w2', 'w3', 'w4'],
      want: { m1: 1, w2: 3, w3: 4, w4: 2 },
    },
    { name: 'everything replaced at once', current: { a: 1, b: 2 }, ids: ['c', 'd'], want: { c: 3, d: 4 } },
    { name: 'kept indexes are never renumbered', current: { w9: 7 }, ids: ['w9'], want: { w9: 7 } },
    {
      name: 'a duplicated stored index goes to the first node; the second gets a new one',
      current: { a: 1, b: 1 },
      ids: ['a', 'b'],
      want: { a: 1, b: 2 },
    },
    {
      name: 'invalid stored indexes are reallocated',
      current: { a: 0, b: 1.5 },
      ids: ['a', 'b'],
      want: { a: 1, b: 2 },
    },
    {
      name: 'IDs that are Object.prototype keys',
      current: {},
      ids: ['constructor', 'tostring'],
      want: { constructor: 1, tostring: 2 },
    },
    { name: 'a duplicate ID gets one index', current: {}, ids: ['a', 'a', 'b'], want: { a: 1, b: 2 } },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const before = structuredClone(tc.current);
      assert.deepEqual(allocateNodeIndexes(tc.current, tc.ids), tc.want);
      assert.deepEqual(tc.current, before, 'the input map is not modified');
    });
  }
});
