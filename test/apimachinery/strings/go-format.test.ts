import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFloat, goJson, goValue } from '../../../src/apimachinery/strings/go-format.ts';
import { goQuote } from '../../../src/apimachinery/strings/goquote.ts';

test('Go %v floats', () => {
  assert.deepEqual([1e6, 123456, 0.0001, 0.00001, 1.5e-7, 2.5, 1234567.5, -3e21].map(goFloat), [
    '1e+06',
    '123456',
    '0.0001',
    '1e-05',
    '1.5e-07',
    '2.5',
    '1.2345675e+06',
    '-3e+21',
  ]);
});

test('Go %q and json.Marshal', () => {
  assert.equal(goQuote('a"b\\c\n\u0001é'), '"a\\"b\\\\c\\n\\x01é"');
  assert.equal(goJson({ b: 1, a: ['<x>', null] }), '{"a":["\\u003cx\\u003e",null],"b":1}');
  assert.deepEqual(
    [goValue('s'), goValue(3), goValue(0.5), goValue(true), goValue(null), goValue({ k: 'v' })],
    ['"s"', '3', '0.5', 'true', 'null', '{"k":"v"}'],
  );
});
