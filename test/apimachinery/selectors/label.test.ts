import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../src/apimachinery/errors/index.ts';
import {
  everything,
  labelSelectorFromObject,
  nothing,
  parseLabelSelector,
} from '../../../src/apimachinery/selectors/label.ts';

const KEY_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected StatusError, got ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail('expected an error');
}

test('label selector strings: canonical form', () => {
  const table: Array<[string, string]> = [
    ['', ''],
    ['a=b', 'a=b'],
    ['a==b', 'a==b'],
    ['a!=b', 'a!=b'],
    ['a in (c,b)', 'a in (b,c)'],
    ['a in (b,b)', 'a in (b)'],
    ['a notin (b)', 'a notin (b)'],
    ['a', 'a'],
    ['!a', '!a'],
    ['  a =  b ,\tc  ', 'a=b,c'],
    ['b=1,a=2', 'a=2,b=1'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['x in (a,)', 'x in (,a)'],
    ['x in (,a)', 'x in (,a)'],
    ['in in (in,notin)', 'in in (in,notin)'],
    ['a=', 'a='],
    ['a>1,b<10', 'a>1,b<10'],
    ['example.com/key=v', 'example.com/key=v'],
    ['a=b \0junk after NUL', 'a=b'],
  ];
  for (const [input, want] of table) assert.equal(parseLabelSelector(input).toString(), want, input);
});

test('label selector strings: matching per operator', () => {
  const table: Array<[string, Record<string, string>, boolean]> = [
    ['', {}, true],
    ['a=b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a=b', {}, false],
    ['a==b', { a: 'b', x: 'y' }, true],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['a!=b', { a: 'c' }, true],
    ['a in (b,c)', { a: 'c' }, true],
    ['a in (b,c)', { a: 'd' }, false],
    ['a in (b,c)', {}, false],
    ['a notin (b,c)', {}, true],
    ['a notin (b,c)', { a: 'b' }, false],
    ['a notin (b,c)', { a: 'x' }, true],
    ['a', { a: '' }, true],
    ['a', { b: 'x' }, false],
    ['!a', {}, true],
    ['!a', { a: 'x' }, false],
    ['a=', { a: '' }, true],
    ['a=', {}, false],
    ['a in ()', { a: '' }, true],
    ['a>5', { a: '6' }, true],
    ['a>5', { a: '5' }, false],
    ['a>5', { a: 'x' }, false],
    ['a>5', {}, false],
    ['a<5', { a: '-3' }, true],
    ['a=b,c', { a: 'b', c: '1' }, true],
    ['a=b,c', { a: 'b' }, false],
  ];
  for (const [selector, labels, want] of table) {
    assert.equal(parseLabelSelector(selector).matches(labels), want, `${selector} vs ${JSON.stringify(labels)}`);
  }
  assert.equal(parseLabelSelector('a').matches(undefined), false);
  assert.equal(parseLabelSelector('!a').matches(null), true);
  assert.equal(parseLabelSelector('').empty, true);
  assert.equal(parseLabelSelector('a').empty, false);
});

test('label selector strings: upstream error messages', () => {
  const table: Array<[string, string]> = [
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (b,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a=b,', "found '', expected: identifier after ','"],
    ['a=b,,c', "found ',', expected: identifier after ','"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    // A NUL inside a token is consumed like upstream's reader does; the rest is still parsed.
    ['a=b\0junk', "found 'junk', expected: ',' or 'end of string'"],
    [')', "found ')', expected: !, identifier, or 'end of string'"],
    ['a_=b', `unable to parse requirement: <nil>: Invalid value: "a_": ${KEY_REGEX_MSG}`],
    ['a=b_', `unable to parse requirement: values[0][a]: Invalid value: "b_": ${VALUE_REGEX_MSG}`],
    [
      'a in (b_,c_)',
      `unable to parse requirement: [values[0][a]: Invalid value: "b_": ${VALUE_REGEX_MSG}, values[1][a]: Invalid value: "c_": ${VALUE_REGEX_MSG}]`,
    ],
    [
      'a>b',
      "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer",
    ],
    ['a<-1', `unable to parse requirement: values[0][a]: Invalid value: "-1": ${VALUE_REGEX_MSG}`],
    [
      'a.b/c/d',
      "unable to parse requirement: <nil>: Invalid value: \"a.b/c/d\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ],
    [
      'Bad_Prefix/a',
      "unable to parse requirement: <nil>: Invalid value: \"Bad_Prefix/a\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    [
      `a=${'x'.repeat(64)}`,
      `unable to parse requirement: values[0][a]: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
    ],
  ];
  for (const [input, want] of table)
    assert.equal(
      badRequest(() => parseLabelSelector(input)),
      want,
      input,
    );
});

test('label selector objects: LabelSelectorAsSelector semantics', () => {
  assert.equal(labelSelectorFromObject(null), nothing);
  assert.equal(labelSelectorFromObject(undefined).matches({}), false);
  assert.equal(labelSelectorFromObject(null).empty, false);
  assert.equal(labelSelectorFromObject({}), everything);
  assert.equal(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).matches({ x: 'y' }), true);

  const sel = labelSelectorFromObject({
    matchLabels: { tier: 'web', app: 'x' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['prod', 'dev'] },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'zone', operator: 'NotIn', values: ['b'] },
      { key: 'team', operator: 'Exists', values: [] },
    ],
  });
  assert.equal(sel.toString(), 'app=x,env in (dev,prod),!legacy,team,tier=web,zone notin (b)');
  assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'prod', team: 't' }), true);
  assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'prod', team: 't', legacy: '1' }), false);
  assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'qa', team: 't' }), false);
  assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'dev', team: 't', zone: 'b' }), false);
  assert.equal(sel.matches({ app: 'x', tier: 'web', env: 'dev' }), false);
});

test('label selector objects: conversion errors are 400 with upstream text', () => {
  const table: Array<[Parameters<typeof labelSelectorFromObject>[0], string]> = [
    [{ matchExpressions: [{ key: 'a', operator: 'Foo' }] }, '"Foo" is not a valid label selector operator'],
    [
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    [{ matchLabels: { a_: 'b' } }, `key: Invalid value: "a_": ${KEY_REGEX_MSG}`],
    [{ matchLabels: { a: 'b b' } }, `values[0][a]: Invalid value: "b b": ${VALUE_REGEX_MSG}`],
  ];
  for (const [input, want] of table)
    assert.equal(
      badRequest(() => labelSelectorFromObject(input)),
      want,
    );
});
