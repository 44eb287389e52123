// decodeBody's protobuf branch and its fieldValidation reporting of fields we cannot decode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../../src/apimachinery/errors/index.ts';
import { decodeBody, OBJECT_BODY_TYPES } from '../../../../src/kube/server/request.ts';
import { envelope, meta, msg } from './build.ts';

const PB = 'application/vnd.kubernetes.protobuf';
const withUnknown = envelope('v1', 'ConfigMap', msg([1, meta('cm')], [9, 'x']));

test('protobuf bodies decode to JSON objects, media type parameters ignored', () => {
  const body = envelope('v1', 'ConfigMap', msg([1, meta('cm')]));
  assert.deepEqual(decodeBody(body, PB, OBJECT_BODY_TYPES), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm' },
  });
  assert.deepEqual(
    decodeBody(body, `${PB}; charset=binary`, OBJECT_BODY_TYPES),
    decodeBody(body, PB, OBJECT_BODY_TYPES),
  );
});

test('an empty protobuf body is a 400', () => {
  assert.throws(
    () => decodeBody(Buffer.alloc(0), PB, OBJECT_BODY_TYPES),
    (e: unknown) => e instanceof StatusError && e.code === 400,
  );
});

test('unknown fields: Strict rejects, Warn warns, Ignore and no context drop them', () => {
  assert.throws(
    () => decodeBody(withUnknown, PB, OBJECT_BODY_TYPES, { fieldValidation: 'Strict', warnings: [] }),
    (e: unknown) =>
      e instanceof StatusError &&
      e.code === 400 &&
      /strict decoding error: unknown field "<protobuf field 9>"/.test(e.message),
  );
  const warn = { fieldValidation: 'Warn', warnings: [] as string[] };
  assert.deepEqual(decodeBody(withUnknown, PB, OBJECT_BODY_TYPES, warn), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm' },
  });
  assert.deepEqual(warn.warnings, ['unknown field "<protobuf field 9>"']);
  const ignore = { fieldValidation: 'Ignore', warnings: [] as string[] };
  decodeBody(withUnknown, PB, OBJECT_BODY_TYPES, ignore);
  assert.deepEqual(ignore.warnings, []);
  assert.equal((decodeBody(withUnknown, PB, OBJECT_BODY_TYPES) as { kind: string }).kind, 'ConfigMap');
});

test('JSON and YAML bodies are unchanged', () => {
  assert.deepEqual(decodeBody(Buffer.from('{"kind":"ConfigMap"}'), 'application/json', OBJECT_BODY_TYPES), {
    kind: 'ConfigMap',
  });
  assert.deepEqual(decodeBody(Buffer.from('kind: ConfigMap'), 'application/yaml', OBJECT_BODY_TYPES), {
    kind: 'ConfigMap',
  });
});
