import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCrdVersion } from '../../../../src/kube/crd/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { specSchema, widgetCrd } from '../fixtures.ts';

function prune(properties: JsonObject, obj: JsonObject): { obj: JsonObject; unknown: string[] } {
  const unknown = compileCrdVersion(widgetCrd(specSchema(properties)), 'v1').prune(obj);
  return { obj, unknown };
}

test('unknown fields are dropped and reported, nested and in lists', () => {
  const props = {
    size: { type: 'integer' },
    items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
  };
  const { obj, unknown } = prune(props, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { size: 1, color: 'red', items: [{ name: 'a', extra: true }] },
    extra: 1,
  });
  assert.deepEqual(obj, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { size: 1, items: [{ name: 'a' }] },
  });
  assert.deepEqual(unknown, ['extra', 'spec.color', 'spec.items[0].extra']);
});

test('x-kubernetes-preserve-unknown-fields keeps unknown fields but still prunes specified ones', () => {
  const props = {
    config: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { tls: { type: 'object', properties: { on: { type: 'boolean' } } } },
    },
  };
  const { obj, unknown } = prune(props, { spec: { config: { anything: { deep: [1] }, tls: { on: true, junk: 1 } } } });
  assert.deepEqual(obj, { spec: { config: { anything: { deep: [1] }, tls: { on: true } } } });
  assert.deepEqual(unknown, ['spec.config.tls.junk']);
});

test('embedded resources keep apiVersion, kind and metadata, with metadata reduced to ObjectMeta', () => {
  const props = {
    template: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
    },
  };
  const { obj, unknown } = prune(props, {
    spec: {
      template: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', labels: { a: 'b' }, color: 'red', annotations: {} },
        spec: { image: 'x', other: 1 },
        status: {},
      },
    },
  });
  assert.deepEqual(obj, {
    spec: {
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { image: 'x' } },
    },
  });
  assert.deepEqual(unknown, ['spec.template.spec.other', 'spec.template.status', 'spec.template.metadata.color']);
});

test('root metadata is reduced to ObjectMeta fields, empty ones omitted, times normalized', () => {
  const { obj, unknown } = prune(
    {},
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'w',
        namespace: 'default',
        labels: {},
        generation: 0,
        clusterName: 'c',
        creationTimestamp: '2024-05-01T12:00:00.123+02:00',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u1', controller: false, extra: 1 }],
        finalizers: ['example.com/f'],
      },
    },
  );
  assert.deepEqual(obj.metadata, {
    name: 'w',
    namespace: 'default',
    creationTimestamp: '2024-05-01T10:00:00Z',
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u1', controller: false }],
    finalizers: ['example.com/f'],
  });
  assert.deepEqual(unknown, ['metadata.clusterName', 'metadata.ownerReferences[0].extra']);
});

test('metadata fields of the wrong type are dropped and reported', () => {
  const compiled = compileCrdVersion(widgetCrd(), 'v1');
  const obj: JsonObject = { metadata: { name: 'w', labels: { a: 1 } } };
  const outcome = compiled.pruneDetailed(obj);
  assert.deepEqual(obj.metadata, { name: 'w' });
  assert.deepEqual(outcome, {
    unknownFields: [],
    invalidMetadata: ['json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string'],
  });
});

test('pruning also drops nulls the schema does not allow', () => {
  const { obj } = prune(
    { a: { type: 'string' }, b: { type: 'string', nullable: true } },
    { spec: { a: null, b: null } },
  );
  assert.deepEqual(obj, { spec: { b: null } });
});

test('a version without properties for a field prunes everything below it', () => {
  const { obj, unknown } = prune({ opaque: { type: 'object' } }, { spec: { opaque: { a: 1, b: { c: 2 } } } });
  assert.deepEqual(obj, { spec: { opaque: {} } });
  assert.deepEqual(unknown, ['spec.opaque.a', 'spec.opaque.b']);
});
