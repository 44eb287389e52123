// Hostile bodies: prototype pollution through any of the three patch types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  builtinSchemaInfo,
} from '../../../src/kube/patch/index.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { assertStatus, badRequest } from './status-assert.ts';

/** Parses like the HTTP layer does: "__proto__" becomes an own member, not the prototype. */
const body = (json: string): unknown => JSON.parse(json);

function assertNoPollution(): void {
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  assert.equal(Object.getPrototypeOf(probe), Object.prototype);
}

const doc = (): JsonObject => ({ metadata: { name: 'a', labels: { app: 'x' } }, data: {} });

const rejected: { name: string; patch: unknown; field: string; pointer: string; token: string }[] = [
  {
    name: 'add under __proto__',
    patch: [{ op: 'add', path: '/__proto__/polluted', value: true }],
    field: 'path',
    pointer: '/__proto__/polluted',
    token: '__proto__',
  },
  {
    name: 'add under a nested __proto__',
    patch: [{ op: 'add', path: '/metadata/__proto__/polluted', value: true }],
    field: 'path',
    pointer: '/metadata/__proto__/polluted',
    token: '__proto__',
  },
  {
    name: 'replace constructor/prototype',
    patch: [{ op: 'replace', path: '/constructor/prototype/polluted', value: true }],
    field: 'path',
    pointer: '/constructor/prototype/polluted',
    token: 'prototype',
  },
  {
    name: 'copy from __proto__',
    patch: [{ op: 'copy', from: '/__proto__', path: '/x' }],
    field: 'from',
    pointer: '/__proto__',
    token: '__proto__',
  },
];

for (const c of rejected) {
  test(`json patch: ${c.name} is refused before anything is applied`, () => {
    assertStatus(
      () => applyJsonPatch(doc(), c.patch),
      badRequest(
        `invalid JSON patch: operation 0 has ${c.field} "${c.pointer}", which uses the reserved member name "${c.token}"`,
      ),
    );
    assertNoPollution();
  });
}

test('json patch: members named like Object.prototype properties are ordinary data', () => {
  const out = applyJsonPatch(doc(), [
    { op: 'add', path: '/metadata/labels/constructor', value: 'c' },
    { op: 'test', path: '/metadata/labels/toString', value: null },
    { op: 'add', path: '/data/hasOwnProperty', value: 'h' },
    { op: 'add', path: '/data/payload', value: body('{"__proto__":{"polluted":true}}') as JsonObject },
  ]) as { data: { payload: object } };
  assert.deepEqual(Object.keys(out.data.payload), ['__proto__']);
  assert.equal(Object.getPrototypeOf(out.data.payload), Object.prototype);
  assert.throws(
    () => applyJsonPatch(doc(), [{ op: 'remove', path: '/metadata/labels/toString' }]),
    (err: unknown) => (err as { code: number }).code === 422,
  );
  assertNoPollution();
});

test('merge patch: a "__proto__" member is stored as data and pollutes nothing', () => {
  const out = applyMergePatch(doc(), body('{"__proto__":{"polluted":true},"data":{"__proto__":{"polluted":true}}}'));
  const data = (out as JsonObject).data as JsonObject;
  assert.deepEqual(Object.keys(out as object), ['metadata', 'data', '__proto__']);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
  assert.equal(JSON.stringify(data), '{"__proto__":{"polluted":true}}');
  assertNoPollution();

  const removed = applyMergePatch(out, body('{"__proto__":null}'));
  assert.deepEqual(Object.keys(removed as object), ['metadata', 'data']);
});

test('strategic merge patch: "__proto__" and "constructor" members are stored as data and pollute nothing', () => {
  const patch = body(
    '{"__proto__":{"polluted":true},"metadata":{"labels":{"constructor":"c","__proto__":"p"}},"spec":{"containers":[{"name":"__proto__","__proto__":{"polluted":true}}]}}',
  );
  const out = applyStrategicMergePatch(doc(), patch, builtinSchemaInfo('', 'Pod'));
  assert.equal(
    JSON.stringify(out),
    '{"metadata":{"name":"a","labels":{"app":"x","constructor":"c","__proto__":"p"}},"data":{},"__proto__":{"polluted":true},"spec":{"containers":[{"name":"__proto__","__proto__":{"polluted":true}}]}}',
  );
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assertNoPollution();

  const merged = applyStrategicMergePatch(
    out,
    body('{"__proto__":{"more":1},"spec":{"containers":[{"name":"__proto__","image":"i"}]}}'),
    builtinSchemaInfo('', 'Pod'),
  );
  assert.equal(
    JSON.stringify((merged as JsonObject).spec),
    '{"containers":[{"name":"__proto__","__proto__":{"polluted":true},"image":"i"}]}',
  );
  assert.equal(JSON.stringify(merged.__proto__), '{"polluted":true,"more":1}');
  assertNoPollution();
});

test('strategic merge patch: $retainKeys naming "constructor" does not keep inherited members', () => {
  const out = applyStrategicMergePatch(
    { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: {} } } },
    { spec: { strategy: { $retainKeys: ['type', 'constructor', 'toString'], type: 'Recreate' } } },
    builtinSchemaInfo('apps', 'Deployment'),
  );
  assert.equal(JSON.stringify(out), '{"spec":{"strategy":{"type":"Recreate"}}}');
  assertNoPollution();
});
