import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFloat, goJson, goQuote, goValue } from '../../../src/kube/crd/go-format.ts';
import { goRegExp } from '../../../src/kube/crd/go-regexp.ts';

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

test('Go regular expressions: translated, or rejected with Go wording', () => {
  const ok = (p: string) => {
    const r = goRegExp(p);
    assert.ok(r.ok, p);
    return r.regexp;
  };
  assert.equal(ok('\\Qa.b\\E').test('a.b'), true);
  assert.equal(ok('\\Qa.b\\E').test('axb'), false);
  assert.equal(ok('^\\pL+$').test('héllo'), true);
  assert.equal(ok('^[\\w\\-\\:]+$').test('a-b:c'), true);
  assert.equal(ok('^a{2}\\z').test('aa'), true);
  assert.deepEqual(goRegExp('(?=x)'), {
    ok: false,
    error: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
  });
  assert.deepEqual(goRegExp('a**'), {
    ok: false,
    error: 'error parsing regexp: invalid nested repetition operator: `**`',
  });
  assert.deepEqual(goRegExp('(\\w)\\1'), { ok: false, error: 'error parsing regexp: invalid escape sequence: `\\1`' });
});
