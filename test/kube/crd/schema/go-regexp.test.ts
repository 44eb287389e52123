import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goRegExp } from '../../../../src/kube/crd/schema/go-regexp.ts';

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
