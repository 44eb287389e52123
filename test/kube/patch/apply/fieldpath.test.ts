// Field sets and their fieldsV1 encoding: exact keys, key order and human paths as kube writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaInfo } from '../../../../src/kube/patch/schema-info.ts';
import {
  FieldSet,
  FieldsV1Error,
  fromObject,
  pathToString,
  type Path,
} from '../../../../src/kube/patch/apply/fieldpath.ts';

const schema: SchemaInfo = {
  listKind(path) {
    switch (path.join('.')) {
      case 'spec.containers':
        return { type: 'map', keys: ['name'] };
      case 'spec.containers.ports':
        return { type: 'map', keys: ['containerPort', 'protocol'] };
      case 'metadata.finalizers':
        return { type: 'set' };
      default:
        return undefined;
    }
  },
  listKeyDefault: (path, key) => (path.join('.') === 'spec.containers.ports' && key === 'protocol' ? 'TCP' : undefined),
};

const f = (name: string) => ({ kind: 'field', name }) as const;

test('fromObject owns leaves, list items by key or value, atomic lists whole; toFieldsV1 orders keys like kube', () => {
  const set = fromObject(
    {
      spec: {
        containers: [{ name: 'web', image: 'nginx', args: ['a', 'b'], ports: [{ containerPort: 80 }] }],
        nodeSelector: {},
        priority: null,
      },
      metadata: { labels: { app: 'x' }, finalizers: ['b.io/x', 'a.io/y'] },
    },
    schema,
  );
  const expected = {
    'f:metadata': {
      'f:finalizers': { 'v:"a.io/y"': {}, 'v:"b.io/x"': {} },
      'f:labels': { 'f:app': {} },
    },
    'f:spec': {
      'f:containers': {
        'k:{"name":"web"}': {
          '.': {},
          'f:args': {},
          'f:image': {},
          'f:name': {},
          'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
        },
      },
      'f:nodeSelector': {},
      'f:priority': {},
    },
  };
  // Compare serialized text too: key order is part of what clients see.
  assert.equal(JSON.stringify(set.toFieldsV1()), JSON.stringify(expected));
});

test('fieldsV1 round-trips, keeps "." markers, drops unknown prefixes and rejects malformed keys', () => {
  const json = {
    'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
    'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} }, 'i:3': {} } },
  };
  const set = FieldSet.fromFieldsV1(json);
  assert.equal(JSON.stringify(set.toFieldsV1()), JSON.stringify(json));
  assert.equal(set.size, 6);
  assert.equal(set.has([f('data')]), true);
  assert.equal(set.has([f('spec')]), false);

  assert.deepEqual(FieldSet.fromFieldsV1({ 'f:a': {}, 'z:future': {} }).toFieldsV1(), { 'f:a': {} });
  // k: keys come back with their fields sorted, whatever order the client wrote.
  assert.deepEqual(Object.keys(FieldSet.fromFieldsV1({ 'k:{"b":1,"a":"x"}': {} }).toFieldsV1()), ['k:{"a":"x","b":1}']);
  assert.throws(() => FieldSet.fromFieldsV1({ x: {} }), FieldsV1Error);
  assert.throws(() => FieldSet.fromFieldsV1({ 'k:nope': {} }), FieldsV1Error);
  assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': 1 }), FieldsV1Error);
});

test('path elements sort fields < keys < values < indices, values numbers < strings < bools', () => {
  const set = FieldSet.fromFieldsV1({
    'i:0': {},
    'v:true': {},
    'v:"b"': {},
    'v:10': {},
    'v:9': {},
    'k:{"a":1}': {},
    'f:z': {},
  });
  assert.deepEqual(Object.keys(set.toFieldsV1()), ['f:z', 'k:{"a":1}', 'v:9', 'v:10', 'v:"b"', 'v:true', 'i:0']);
});

test('set algebra: union, intersection, difference vs recursiveDifference', () => {
  const a = FieldSet.fromFieldsV1({ 'f:data': { '.': {}, 'f:x': {}, 'f:y': {} }, 'f:spec': { 'f:r': {} } });
  const b = FieldSet.fromFieldsV1({ 'f:data': { 'f:y': {}, 'f:z': {} } });
  assert.deepEqual(a.union(b).toFieldsV1(), {
    'f:data': { '.': {}, 'f:x': {}, 'f:y': {}, 'f:z': {} },
    'f:spec': { 'f:r': {} },
  });
  assert.deepEqual(a.intersection(b).toFieldsV1(), { 'f:data': { 'f:y': {} } });
  assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:data': { '.': {}, 'f:x': {} }, 'f:spec': { 'f:r': {} } });
  const parent = FieldSet.fromFieldsV1({ 'f:data': {} });
  // A member removes only itself from a difference, its whole subtree from a recursive one.
  assert.deepEqual(a.difference(parent).toFieldsV1(), { 'f:data': { 'f:x': {}, 'f:y': {} }, 'f:spec': { 'f:r': {} } });
  assert.deepEqual(a.recursiveDifference(parent).toFieldsV1(), { 'f:spec': { 'f:r': {} } });
  assert.equal(a.difference(a).isEmpty, true);
  assert.deepEqual(a.leaves().toFieldsV1(), { 'f:data': { 'f:x': {}, 'f:y': {} }, 'f:spec': { 'f:r': {} } });
});

test('human paths match kube conflict messages', () => {
  const paths: [Path, string][] = [
    [[f('data'), f('x')], '.data.x'],
    [
      [f('spec'), f('containers'), { kind: 'key', key: [['name', 'x']] }, f('image')],
      '.spec.containers[name="x"].image',
    ],
    [
      [
        f('spec'),
        f('ports'),
        {
          kind: 'key',
          key: [
            ['port', 80],
            ['protocol', 'TCP'],
          ],
        },
      ],
      '.spec.ports[port=80,protocol="TCP"]',
    ],
    [[f('metadata'), f('finalizers'), { kind: 'value', value: 'a.io/x' }], '.metadata.finalizers[="a.io/x"]'],
    [[f('spec'), f('args'), { kind: 'index', index: 2 }], '.spec.args[2]'],
  ];
  for (const [p, s] of paths) assert.equal(pathToString(p), s);
});

test('paths() iterates members before children, each sorted', () => {
  const set = FieldSet.fromFieldsV1({
    'f:metadata': { 'f:labels': { 'f:b': {}, 'f:a': {} } },
    'f:data': { '.': {}, 'f:x': {} },
  });
  assert.deepEqual(set.paths().map(pathToString), ['.data', '.data.x', '.metadata.labels.a', '.metadata.labels.b']);
});
