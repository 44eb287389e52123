import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCrdVersion, NAME_COLUMN } from '../../../src/kube/crd/index.ts';
import type { JsonObject } from '../../../src/apimachinery/meta/index.ts';
import { specSchema, versions, widgetCrd } from './fixtures.ts';

test('subresources and printer columns come from the version', () => {
  const crd = widgetCrd(undefined, {
    subresources: {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    },
    additionalPrinterColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      {
        name: 'Phase',
        type: 'string',
        format: 'name',
        description: 'the phase',
        priority: 1,
        jsonPath: '.status.phase',
      },
    ],
  });
  const compiled = compileCrdVersion(crd, 'v1');
  assert.equal(compiled.hasStatus, true);
  assert.deepEqual(compiled.scale, {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  });
  assert.deepEqual(compiled.printerColumns, [
    {
      name: 'Replicas',
      type: 'integer',
      format: '',
      description: 'Custom resource definition column (in JSONPath format): .spec.replicas',
      priority: 0,
      jsonPath: '.spec.replicas',
    },
    { name: 'Phase', type: 'string', format: 'name', description: 'the phase', priority: 1, jsonPath: '.status.phase' },
  ]);
  assert.equal(NAME_COLUMN.name, 'Name');
});

test('without declared columns kube serves Age; without subresources there is no status or scale', () => {
  const compiled = compileCrdVersion(widgetCrd(), 'v1');
  assert.equal(compiled.hasStatus, false);
  assert.equal(compiled.scale, undefined);
  assert.deepEqual(
    compiled.printerColumns.map((c) => [c.name, c.type, c.jsonPath]),
    [['Age', 'date', '.metadata.creationTimestamp']],
  );
});

test('each version compiles its own schema; identical definitions share one compilation', () => {
  const crd = widgetCrd(specSchema({ size: { type: 'integer' } }));
  versions(crd).push({
    name: 'v2',
    served: true,
    storage: false,
    schema: { openAPIV3Schema: specSchema({ size: { type: 'string' } }) },
  });
  const v1 = compileCrdVersion(crd, 'v1');
  const v2 = compileCrdVersion(crd, 'v2');
  const obj: JsonObject = { spec: { size: 'big' } };
  assert.equal(v1.validate(obj).length, 1);
  assert.equal(v2.validate(obj).length, 0);
  assert.equal(compileCrdVersion(JSON.parse(JSON.stringify(crd)) as JsonObject, 'v1'), v1);
  assert.throws(() => compileCrdVersion(crd, 'v3'), /version v3 not found/);
});

test('schemaInfo: list types, map keys and atomic maps for server-side apply', () => {
  const crd = widgetCrd(
    specSchema({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: {
          type: 'object',
          required: ['port', 'protocol'],
          properties: {
            port: { type: 'integer' },
            protocol: { type: 'string' },
            hosts: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          },
        },
      },
      args: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
      env: { type: 'array', items: { type: 'string' } },
      selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
      byName: {
        type: 'object',
        additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      },
    }),
  );
  const info = compileCrdVersion(crd, 'v1').schemaInfo;
  assert.deepEqual(info.listKind(['spec', 'ports']), { type: 'map', keys: ['port', 'protocol'] });
  assert.deepEqual(info.listKind(['spec', 'ports', 'hosts']), { type: 'set' });
  assert.deepEqual(info.listKind(['spec', 'args']), { type: 'atomic' });
  assert.equal(info.listKind(['spec', 'env']), undefined);
  assert.deepEqual(info.listKind(['spec', 'byName', 'anyKey']), { type: 'set' });
  assert.deepEqual(info.listKind(['metadata', 'finalizers']), { type: 'set' });
  assert.deepEqual(info.listKind(['metadata', 'ownerReferences']), { type: 'map', keys: ['uid'] });
  assert.equal(info.isAtomicMap?.(['spec', 'selector']), true);
  assert.equal(info.isAtomicMap?.(['spec', 'ports']), false);
});

test('schemaInfo: a map list key field answers its schema default, others undefined', () => {
  const crd = widgetCrd(
    specSchema({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
        items: {
          type: 'object',
          required: ['containerPort'],
          properties: { containerPort: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
        },
      },
    }),
  );
  const info = compileCrdVersion(crd, 'v1').schemaInfo;
  assert.equal(info.listKeyDefault?.(['spec', 'ports'], 'protocol'), 'TCP');
  assert.equal(info.listKeyDefault?.(['spec', 'ports'], 'containerPort'), undefined);
  assert.equal(info.listKeyDefault?.(['spec', 'ports'], 'missing'), undefined);
  assert.equal(info.listKeyDefault?.(['spec', 'other'], 'protocol'), undefined);
});
