import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResults, parseJsonPath, printerCell } from '../../../src/kube/crd/index.ts';

const obj = {
  metadata: {
    name: 'w',
    labels: { app: 'web', 'example.com/tier': 'front' },
    creationTimestamp: '2024-05-01T10:00:00Z',
  },
  spec: {
    replicas: 3,
    ratio: 0.25,
    big: 1500000.5,
    paused: false,
    nothing: null,
    selector: { matchLabels: { app: 'web' } },
  },
  status: {
    conditions: [
      { type: 'Progressing', status: 'True' },
      { type: 'Ready', status: 'False', since: 'yesterday' },
    ],
    phases: ['a', 'b', 'c'],
  },
};

test('simple paths, list indexes, negative indexes, map keys with escaped dots', () => {
  assert.deepEqual(findResults(obj, '.spec.replicas'), [3]);
  assert.deepEqual(findResults(obj, '.status.conditions[0].status'), ['True']);
  assert.deepEqual(findResults(obj, '.status.phases[-1]'), ['c']);
  assert.deepEqual(findResults(obj, '.metadata.labels.app'), ['web']);
  assert.deepEqual(findResults(obj, '.metadata.labels.example\\.com/tier'), ['front']);
  assert.deepEqual(findResults(obj, "{.metadata.labels['example.com/tier']}"), ['front']);
  assert.deepEqual(findResults(obj, '.spec.missing.deeper'), []);
});

test('filters, wildcards, slices, unions and recursive descent', () => {
  assert.deepEqual(findResults(obj, '.status.conditions[?(@.type=="Ready")].status'), ['False']);
  assert.deepEqual(findResults(obj, ".status.conditions[?(@.status!='True')].type"), ['Ready']);
  assert.deepEqual(findResults(obj, '.status.conditions[?(@.since)].type'), ['Ready']);
  assert.deepEqual(findResults(obj, '.status.conditions[*].type'), ['Progressing', 'Ready']);
  assert.deepEqual(findResults(obj, '.status.phases[0:2]'), ['a', 'b']);
  assert.deepEqual(findResults(obj, '.status.phases[0,2]'), ['a', 'c']);
  assert.deepEqual(findResults(obj, '..app'), ['web', 'web']);
});

test('errors where client-go errors', () => {
  assert.throws(() => findResults(obj, '.status.phases[5]'), /array index out of bounds: index 5, length 3/);
  assert.throws(() => findResults(obj, '.spec.replicas[0]'), /not array or slice/);
  assert.throws(() => parseJsonPath('.status.conditions[?(@.type=="Ready"'), /unterminated filter/);
});

test('printer cells by column type', () => {
  assert.equal(printerCell(obj, { type: 'integer', jsonPath: '.spec.replicas' }), 3);
  assert.equal(printerCell(obj, { type: 'integer', jsonPath: '.spec.ratio' }), 0);
  assert.equal(printerCell(obj, { type: 'number', jsonPath: '.spec.ratio' }), 0.25);
  assert.equal(printerCell(obj, { type: 'boolean', jsonPath: '.spec.paused' }), false);
  assert.equal(
    printerCell(obj, { type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' }),
    'False',
  );
  assert.equal(printerCell(obj, { type: 'date', jsonPath: '.metadata.creationTimestamp' }), '2024-05-01T10:00:00Z');
});

test('string columns print any value as text, like kubectl -o jsonpath', () => {
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.spec.replicas' }), '3');
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.spec.big' }), '1.5000005e+06');
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.spec.selector' }), '{"matchLabels":{"app":"web"}}');
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.spec.nothing' }), '<no value>');
});

test('missing values, wrong types and bad paths give an empty cell', () => {
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.spec.absent' }), null);
  assert.equal(printerCell(obj, { type: 'integer', jsonPath: '.metadata.name' }), null);
  assert.equal(printerCell(obj, { type: 'boolean', jsonPath: '.spec.nothing' }), null);
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.status.phases[9]' }), null);
  assert.equal(printerCell(obj, { type: 'string', jsonPath: '.status.conditions[?(@.type==1)].status' }), null);
});

test('date cells: an unparsable timestamp is <invalid>, an empty one <unknown>', () => {
  assert.equal(printerCell({ t: 'yesterday' }, { type: 'date', jsonPath: '.t' }), '<invalid>');
  assert.equal(printerCell({ t: '2024-02-30T00:00:00Z' }, { type: 'date', jsonPath: '.t' }), '<invalid>');
  assert.equal(printerCell({ t: '' }, { type: 'date', jsonPath: '.t' }), '<unknown>');
  assert.equal(printerCell({ t: 5 }, { type: 'date', jsonPath: '.t' }), null);
});
