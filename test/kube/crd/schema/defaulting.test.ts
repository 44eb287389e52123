import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCrdVersion } from '../../../../src/kube/crd/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { specSchema, widgetCrd } from '../fixtures.ts';

function defaults(properties: JsonObject, spec: JsonObject | undefined): JsonObject {
  const crd = widgetCrd(specSchema(properties, { default: {} }));
  const obj: JsonObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
  if (spec !== undefined) obj.spec = spec;
  return compileCrdVersion(crd, 'v1').applyDefaults(obj);
}

test('defaults fill missing fields, nested objects included', () => {
  const props = {
    replicas: { type: 'integer', default: 1 },
    strategy: {
      type: 'object',
      default: {},
      properties: { type: { type: 'string', default: 'Rolling' }, maxSurge: { type: 'integer' } },
    },
  };
  assert.deepEqual(defaults(props, {}).spec, { replicas: 1, strategy: { type: 'Rolling' } });
  assert.deepEqual(defaults(props, { replicas: 3, strategy: { type: 'Recreate' } }).spec, {
    replicas: 3,
    strategy: { type: 'Recreate' },
  });
});

test('a missing object with a default is created and then defaulted inside', () => {
  const props = { replicas: { type: 'integer', default: 2 } };
  assert.deepEqual(defaults(props, undefined).spec, { replicas: 2 });
});

test('defaults apply inside array items and map values', () => {
  const props = {
    ports: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } },
    },
    limits: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { unit: { type: 'string', default: 'Mi' } } },
    },
  };
  const spec = defaults(props, {
    ports: [{ name: 'a' }, { name: 'b', protocol: 'UDP' }],
    limits: { memory: {}, cpu: { unit: 'm' } },
  }).spec;
  assert.deepEqual(spec, {
    ports: [
      { name: 'a', protocol: 'TCP' },
      { name: 'b', protocol: 'UDP' },
    ],
    limits: { memory: { unit: 'Mi' }, cpu: { unit: 'm' } },
  });
});

test('null: replaced by the default when not nullable, dropped when there is none, kept when nullable', () => {
  const props = {
    a: { type: 'string', default: 'x' },
    b: { type: 'string' },
    c: { type: 'string', nullable: true, default: 'y' },
    items: { type: 'array', items: { type: 'string', default: 'z' } },
  };
  assert.deepEqual(defaults(props, { a: null, b: null, c: null, items: ['q', null] }).spec, {
    a: 'x',
    c: null,
    items: ['q', 'z'],
  });
});

test('default values are copies, not shared', () => {
  const props = { tags: { type: 'array', items: { type: 'string' }, default: ['a'] } };
  const crd = widgetCrd(specSchema(props));
  const compiled = compileCrdVersion(crd, 'v1');
  const first = compiled.applyDefaults({ spec: {} });
  ((first.spec as JsonObject).tags as string[]).push('b');
  assert.deepEqual(compiled.applyDefaults({ spec: {} }).spec, { tags: ['a'] });
});

test('no defaulting under preserved unknown fields without a schema', () => {
  const props = {
    raw: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { known: { type: 'string', default: 'k' } },
    },
  };
  assert.deepEqual(defaults(props, { raw: { other: { x: null } } }).spec, { raw: { other: { x: null }, known: 'k' } });
});

test('applyDefaults works in place and returns the object', () => {
  const compiled = compileCrdVersion(widgetCrd(specSchema({ size: { type: 'integer', default: 3 } })), 'v1');
  const obj: JsonObject = { spec: {} };
  assert.equal(compiled.applyDefaults(obj), obj);
  assert.deepEqual(obj, { spec: { size: 3 } });
});
