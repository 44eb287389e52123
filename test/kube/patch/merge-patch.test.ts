import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from '../../../src/kube/patch/index.ts';
import type { JsonValue } from '../../../src/apimachinery/meta/index.ts';
import { assertStatus, badRequest, deepFreeze } from './status-assert.ts';

// RFC 7386 appendix A, where kube-apiserver agrees with it, then kube's own behaviour.
const cases: { name: string; doc: JsonValue; patch: JsonValue; want: JsonValue }[] = [
  { name: 'replace a member', doc: { a: 'b' }, patch: { a: 'c' }, want: { a: 'c' } },
  { name: 'add a member', doc: { a: 'b' }, patch: { b: 'c' }, want: { a: 'b', b: 'c' } },
  { name: 'null deletes', doc: { a: 'b' }, patch: { a: null }, want: {} },
  { name: 'null deletes only its member', doc: { a: 'b', b: 'c' }, patch: { a: null }, want: { b: 'c' } },
  { name: 'a scalar replaces a list', doc: { a: ['b'] }, patch: { a: 'c' }, want: { a: 'c' } },
  { name: 'a list replaces a scalar', doc: { a: 'c' }, patch: { a: ['b'] }, want: { a: ['b'] } },
  {
    name: 'objects merge recursively',
    doc: { a: { b: 'c' } },
    patch: { a: { b: 'd', c: null } },
    want: { a: { b: 'd' } },
  },
  { name: 'lists are replaced, not merged', doc: { a: [{ b: 'c' }] }, patch: { a: [1] }, want: { a: [1] } },
  { name: 'a list body replaces a list document', doc: ['a', 'b'], patch: ['c', 'd'], want: ['c', 'd'] },
  { name: 'a list body replaces an object document', doc: { a: 'b' }, patch: ['c'], want: ['c'] },
  { name: 'existing nulls are kept', doc: { e: null }, patch: { a: 1 }, want: { e: null, a: 1 } },
  { name: 'an object body replaces a list document', doc: [1, 2], patch: { a: 'b', c: null }, want: { a: 'b' } },
  {
    name: 'nulls inside new objects are dropped',
    doc: {},
    patch: { a: { bb: { ccc: null } } },
    want: { a: { bb: {} } },
  },
  { name: 'an empty patch changes nothing', doc: { a: 1 }, patch: {}, want: { a: 1 } },
  {
    name: 'null elements are dropped from lists taken from the patch (json-patch v4)',
    doc: { args: ['x'] },
    patch: { args: ['a', null, { k: null, v: 1 }], extra: [null] },
    want: { args: ['a', { v: 1 }], extra: [] },
  },
  {
    name: 'a list replacing an object is taken as sent (json-patch v4)',
    doc: { a: { x: 1 } },
    patch: { a: [null, 1] },
    want: { a: [null, 1] },
  },
  { name: 'a list body loses its null elements', doc: { a: 1 }, patch: [1, null, { b: null }], want: [1, {}] },
  {
    name: 'labels: add one, remove one',
    doc: { metadata: { name: 'x', labels: { a: '1', b: '2' } } },
    patch: { metadata: { labels: { a: null, c: '3' } } },
    want: { metadata: { name: 'x', labels: { b: '2', c: '3' } } },
  },
];

for (const c of cases) {
  test(`merge patch: ${c.name}`, () => {
    assert.deepEqual(applyMergePatch(c.doc, c.patch), c.want);
  });
}

const invalid: { name: string; patch: unknown }[] = [
  { name: 'null', patch: null },
  { name: 'a string', patch: 'bar' },
  { name: 'a number', patch: 1 },
  { name: 'a boolean', patch: true },
  { name: 'no body', patch: undefined },
];

for (const c of invalid) {
  test(`merge patch: a body that is ${c.name} is a 400`, () => {
    assertStatus(() => applyMergePatch({ a: 'foo' }, c.patch), badRequest('Invalid JSON Patch'));
  });
}

test('merge patch: inputs are never modified, and the result shares nothing with the patch', () => {
  const doc = deepFreeze({ a: { b: 1, c: [1, 2] }, d: 'x' });
  const patch = deepFreeze({ a: { b: null, e: { f: 1 } }, g: [{ h: 1 }] });
  const out = applyMergePatch(doc, patch) as { a: { e: { f: number } }; g: { h: number }[] };
  assert.deepEqual(out, { a: { c: [1, 2], e: { f: 1 } }, d: 'x', g: [{ h: 1 }] });
  out.a.e.f = 2;
  out.g[0].h = 2;
  assert.deepEqual(patch, { a: { b: null, e: { f: 1 } }, g: [{ h: 1 }] });
});
