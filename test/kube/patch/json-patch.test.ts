import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch } from '../../../src/kube/patch/index.ts';
import type { JsonValue } from '../../../src/apimachinery/meta/index.ts';
import { NOT_APPLICABLE, assertStatus, badRequest, deepFreeze } from './status-assert.ts';

const metadata = () => ({ name: 'a', labels: { app: 'web' } });
const spec = () => ({ list: [1, 2, 3], nested: { 'a/b': 1, 'c~d': 2 } });
const doc = () => ({ metadata: metadata(), spec: spec() });

const applied: { name: string; patch: JsonValue; want: JsonValue }[] = [
  {
    name: 'add a member',
    patch: [{ op: 'add', path: '/metadata/labels/tier', value: 'fe' }],
    want: { metadata: { name: 'a', labels: { app: 'web', tier: 'fe' } }, spec: spec() },
  },
  {
    name: 'add replaces an existing member',
    patch: [{ op: 'add', path: '/metadata/name', value: 'b' }],
    want: { metadata: { name: 'b', labels: { app: 'web' } }, spec: spec() },
  },
  {
    name: 'add inserts into a list, "-" appends, a negative index counts from the end',
    patch: [
      { op: 'add', path: '/spec/list/1', value: 'x' },
      { op: 'add', path: '/spec/list/-', value: 'end' },
      { op: 'add', path: '/spec/list/-1', value: 'last' },
    ],
    want: { metadata: metadata(), spec: { list: [1, 'x', 2, 3, 'end', 'last'], nested: spec().nested } },
  },
  {
    name: 'add without value writes null (json-patch v4)',
    patch: [{ op: 'add', path: '/spec/extra' }],
    want: { metadata: metadata(), spec: { ...spec(), extra: null } },
  },
  {
    name: 'remove a member and list elements, negative index included',
    patch: [
      { op: 'remove', path: '/metadata/labels/app' },
      { op: 'remove', path: '/spec/list/0' },
      { op: 'remove', path: '/spec/list/-1' },
    ],
    want: { metadata: { name: 'a', labels: {} }, spec: { list: [2], nested: spec().nested } },
  },
  {
    name: 'replace a member and a list element',
    patch: [
      { op: 'replace', path: '/metadata/name', value: 'z' },
      { op: 'replace', path: '/spec/list/2', value: { deep: true } },
    ],
    want: {
      metadata: { name: 'z', labels: { app: 'web' } },
      spec: { list: [1, 2, { deep: true }], nested: spec().nested },
    },
  },
  {
    name: 'replace of a missing member adds it (json-patch v4)',
    patch: [{ op: 'replace', path: '/metadata/labels/new', value: 'v' }],
    want: { metadata: { name: 'a', labels: { app: 'web', new: 'v' } }, spec: spec() },
  },
  {
    name: 'escaped pointer tokens ~1 and ~0',
    patch: [
      { op: 'replace', path: '/spec/nested/a~1b', value: 10 },
      { op: 'remove', path: '/spec/nested/c~0d' },
    ],
    want: { metadata: metadata(), spec: { list: [1, 2, 3], nested: { 'a/b': 10 } } },
  },
  {
    name: 'move and copy',
    patch: [
      { op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/role' },
      { op: 'copy', from: '/spec/list', path: '/spec/copy' },
      { op: 'move', from: '/spec/list/0', path: '/spec/list/-' },
    ],
    want: {
      metadata: { name: 'a', labels: { role: 'web' } },
      spec: { list: [2, 3, 1], nested: spec().nested, copy: [1, 2, 3] },
    },
  },
  {
    name: 'copy from a missing member copies null (json-patch v4)',
    patch: [{ op: 'copy', from: '/metadata/nothing', path: '/metadata/copied' }],
    want: { metadata: { ...metadata(), copied: null }, spec: spec() },
  },
  {
    name: 'passing tests, a missing member tests equal to null',
    patch: [
      { op: 'test', path: '/metadata/labels', value: { app: 'web' } },
      { op: 'test', path: '/spec/list/1', value: 2 },
      { op: 'test', path: '/metadata/absent', value: null },
    ],
    want: doc(),
  },
  {
    name: 'a path without a leading slash skips its first segment (json-patch v4)',
    patch: [{ op: 'add', path: 'ignored/extra', value: 1 }],
    want: { ...doc(), extra: 1 },
  },
  { name: 'an empty patch', patch: [], want: doc() },
  { name: 'a null body is an empty patch', patch: null, want: doc() },
];

for (const c of applied) {
  test(`json patch: ${c.name}`, () => {
    assert.deepEqual(applyJsonPatch(doc(), c.patch), c.want);
  });
}

test('json patch: a failed test is a 422 with kube-apiserver’s Status body', () => {
  const err = assertStatus(
    () => applyJsonPatch(doc(), [{ op: 'test', path: '/metadata/name', value: 'other' }]),
    NOT_APPLICABLE,
  );
  assert.deepEqual(err.toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: {},
    code: 422,
  });
  assert.equal((err.cause as Error).message, 'testing value /metadata/name failed: test failed');
});

const notApplicable: { name: string; patch: JsonValue; cause: string }[] = [
  {
    name: 'test of a missing member against a value',
    patch: [{ op: 'test', path: '/metadata/absent', value: 'x' }],
    cause: 'testing value /metadata/absent failed: test failed',
  },
  {
    name: 'test with a different object',
    patch: [{ op: 'test', path: '/metadata/labels', value: { app: 'web', extra: 'x' } }],
    cause: 'testing value /metadata/labels failed: test failed',
  },
  {
    name: 'add under a missing parent',
    patch: [{ op: 'add', path: '/status/phase', value: 'Running' }],
    cause: 'add operation does not apply: doc is missing path: "/status/phase"',
  },
  {
    name: 'remove of a missing member',
    patch: [{ op: 'remove', path: '/metadata/labels/absent' }],
    cause:
      "error in remove for path: '/metadata/labels/absent': Unable to remove nonexistent key: absent: missing value",
  },
  {
    name: 'add past the end of a list',
    patch: [{ op: 'add', path: '/spec/list/5', value: 0 }],
    cause: "error in add for path: '/spec/list/5': Unable to access invalid index: 5: invalid index referenced",
  },
  {
    name: 'replace past the end of a list',
    patch: [{ op: 'replace', path: '/spec/list/3', value: 0 }],
    cause: 'replace operation does not apply: doc is missing key: /spec/list/3',
  },
  {
    name: 'a list index that is not a number',
    patch: [{ op: 'remove', path: '/spec/list/first' }],
    cause: `error in remove for path: '/spec/list/first': strconv.Atoi: parsing "first": invalid syntax`,
  },
  {
    name: 'an unknown op',
    patch: [{ op: 'merge', path: '/metadata' }],
    cause: 'Unexpected kind: merge',
  },
  { name: 'an op that is not a string', patch: [{ op: 1, path: '/a' }], cause: 'Unexpected kind: unknown' },
  { name: 'a null operation', patch: [null], cause: 'Unexpected kind: unknown' },
  { name: 'a missing path', patch: [{ op: 'add', value: 1 }], cause: 'add operation failed to decode path' },
  {
    name: 'a move without from',
    patch: [{ op: 'move', path: '/metadata/x' }],
    cause: 'move operation failed to decode from',
  },
  {
    name: 'the root path',
    patch: [{ op: 'replace', path: '', value: {} }],
    cause: 'replace operation does not apply: doc is missing path: ',
  },
  {
    name: 'traversal through a scalar',
    patch: [{ op: 'add', path: '/metadata/name/x', value: 1 }],
    cause: 'add operation does not apply: doc is missing path: "/metadata/name/x"',
  },
];

for (const c of notApplicable) {
  test(`json patch: ${c.name} is a 422`, () => {
    const err = assertStatus(() => applyJsonPatch(doc(), c.patch), NOT_APPLICABLE);
    assert.equal((err.cause as Error).message, c.cause);
  });
}

const malformed: { name: string; patch: unknown; message: string }[] = [
  {
    name: 'an object body',
    patch: { op: 'add' },
    message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
  },
  {
    name: 'a string body',
    patch: 'add',
    message: 'json: cannot unmarshal string into Go value of type jsonpatch.Patch',
  },
  { name: 'a number body', patch: 3, message: 'json: cannot unmarshal number into Go value of type jsonpatch.Patch' },
  {
    name: 'an operation that is a string',
    patch: ['add'],
    message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
  },
  {
    name: 'an operation that is a list',
    patch: [[]],
    message: 'json: cannot unmarshal array into Go value of type jsonpatch.Operation',
  },
  { name: 'no body', patch: undefined, message: 'unexpected end of JSON input' },
];

for (const c of malformed) {
  test(`json patch: ${c.name} is a 400`, () => {
    assertStatus(() => applyJsonPatch(doc(), c.patch), badRequest(c.message));
  });
}

test('json patch: more than 10000 operations is a 413', () => {
  const patch = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/metadata/name', value: 'a' }));
  assertStatus(() => applyJsonPatch(doc(), patch), {
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
  });
  assert.deepEqual(applyJsonPatch(doc(), patch.slice(1)), doc());
});

test('json patch: inputs are never modified, and the result shares nothing with them', () => {
  const input = deepFreeze(doc());
  const value = { deep: { x: 1 } };
  const patch = deepFreeze([
    { op: 'add', path: '/spec/obj', value },
    { op: 'add', path: '/spec/obj/deep/y', value: 2 },
    { op: 'remove', path: '/spec/list/0' },
    { op: 'move', from: '/metadata/labels', path: '/spec/labels' },
  ]);
  const out = applyJsonPatch(input, patch) as { spec: { obj: JsonValue } };
  assert.deepEqual(out.spec.obj, { deep: { x: 1, y: 2 } });
  assert.deepEqual(input, doc());
  assert.deepEqual(value, { deep: { x: 1 } });
});

test('json patch: a failing operation leaves the document as it was', () => {
  const input = doc();
  assertStatus(
    () =>
      applyJsonPatch(input, [
        { op: 'add', path: '/metadata/labels/x', value: 'y' },
        { op: 'test', path: '/metadata/name', value: 'b' },
      ]),
    NOT_APPLICABLE,
  );
  assert.deepEqual(input, doc());
});
