import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  regexError,
  validateName,
} from '../../../src/apimachinery/validation/names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

test('regexError formats examples like Go', () => {
  assert.equal(regexError('m', 'f'), "m (regex used for validation is 'f')");
  assert.equal(regexError('m', 'f', 'a'), "m (e.g. 'a', regex used for validation is 'f')");
  assert.equal(regexError('m', 'f', 'a', 'b'), "m (e.g. 'a',  or 'b', regex used for validation is 'f')");
});

test('DNS-1123 subdomain', () => {
  const table: Array<[string, string[]]> = [
    ['example.com', []],
    ['a', []],
    ['0-x.y-1', []],
    ['x'.repeat(253), []],
    ['x'.repeat(254), ['must be no more than 253 characters']],
    ['Upper', [SUBDOMAIN_MSG]],
    ['-a', [SUBDOMAIN_MSG]],
    ['a.', [SUBDOMAIN_MSG]],
    ['a..b', [SUBDOMAIN_MSG]],
    ['a_b', [SUBDOMAIN_MSG]],
    ['', [SUBDOMAIN_MSG]],
    [`${'A'.repeat(254)}`, ['must be no more than 253 characters', SUBDOMAIN_MSG]],
  ];
  for (const [value, want] of table) assert.deepEqual(isDNS1123Subdomain(value), want, value);
});

test('DNS-1123 label', () => {
  const table: Array<[string, string[]]> = [
    ['my-name', []],
    ['123-abc', []],
    ['x'.repeat(63), []],
    ['x'.repeat(64), ['must be no more than 63 characters']],
    ['a.b', ['must not contain dots']],
    ['a-', [LABEL_MSG]],
    ['A', [LABEL_MSG]],
    ['', [LABEL_MSG]],
  ];
  for (const [value, want] of table) assert.deepEqual(isDNS1123Label(value), want, value);
});

test('DNS-1035 label', () => {
  const table: Array<[string, string[]]> = [
    ['my-name', []],
    ['abc-123', []],
    ['1abc', [DNS1035_MSG]],
    ['a.b', [DNS1035_MSG]],
    ['x'.repeat(64), ['must be no more than 63 characters']],
  ];
  for (const [value, want] of table) assert.deepEqual(isDNS1035Label(value), want, value);
});

test('qualified names (label keys, annotation keys, finalizers)', () => {
  const table: Array<[string, string[]]> = [
    ['MyName', []],
    ['my.name', []],
    ['example.com/My_Name-1', []],
    ['a/b', []],
    ['x'.repeat(63), []],
    ['x'.repeat(64), ['name part must be no more than 63 characters']],
    ['', ['name part must be non-empty', NAME_PART_MSG]],
    ['/a', ['prefix part must be non-empty']],
    ['a/', ['name part must be non-empty', NAME_PART_MSG]],
    ['Example.com/a', [`prefix part ${SUBDOMAIN_MSG}`]],
    ['a_', [NAME_PART_MSG]],
    [
      'a/b/c',
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
  ];
  for (const [value, want] of table) assert.deepEqual(isQualifiedName(value), want, value);
});

test('label values', () => {
  const table: Array<[string, string[]]> = [
    ['', []],
    ['MyValue', []],
    ['my_value', []],
    ['1.2.3', []],
    ['a b', [VALUE_MSG]],
    ['-a', [VALUE_MSG]],
    ['x'.repeat(64), ['must be no more than 63 characters']],
    // Byte length, not characters: 32 two-byte characters are 64 bytes.
    ['é'.repeat(32), ['must be no more than 63 characters', VALUE_MSG]],
  ];
  for (const [value, want] of table) assert.deepEqual(isValidLabelValue(value), want, value);
});

test('path segment names', () => {
  assert.deepEqual(isValidPathSegmentName('ok:name'), []);
  assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
});

test('validateName: rules and generateName prefixes', () => {
  const table: Array<[Parameters<typeof validateName>[0], string, boolean, string[]]> = [
    ['subdomain', 'web.example', false, []],
    ['subdomain', 'web-', false, [SUBDOMAIN_MSG]],
    ['subdomain', 'web-', true, []],
    // Upstream replaces the last two characters with "a", so the one before the dash is never checked.
    ['subdomain', 'a.-', true, []],
    ['subdomain', 'ab_-', true, []],
    ['subdomain', 'Ab-', true, [SUBDOMAIN_MSG]],
    ['label', 'web', false, []],
    ['label', 'web.x', false, ['must not contain dots']],
    ['label', 'web-', true, []],
    ['dns1035', '1web', false, [DNS1035_MSG]],
    ['dns1035', 'web-', true, []],
    ['path-segment', 'Anything goes:!', false, []],
    ['path-segment', '..', false, ["may not be '..'"]],
    ['path-segment', '..', true, []],
    ['path-segment', 'a/', true, ["may not contain '/'"]],
  ];
  for (const [rule, name, prefix, want] of table)
    assert.deepEqual(validateName(rule, name, prefix), want, `${rule} ${name} ${prefix}`);
});
