import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goQuote, goStringSlice } from '../../../src/apimachinery/strings/goquote.ts';

test('goQuote matches strconv.Quote', () => {
  const table: Array<[string, string]> = [
    ['', '""'],
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['tab\there', '"tab\\there"'],
    ['nl\n\r', '"nl\\n\\r"'],
    ['\x07\b\f\v', '"\\a\\b\\f\\v"'],
    ['\x00\x1f\x7f', '"\\x00\\x1f\\x7f"'],
    ['héllo ✓', '"héllo ✓"'],
    ['\u00a0', '"\\u00a0"'],
    ['\u200b', '"\\u200b"'],
    ['😀', '"😀"'],
    ['\u{e0001}', '"\\U000e0001"'],
  ];
  for (const [input, want] of table) assert.equal(goQuote(input), want, JSON.stringify(input));
});

test('goStringSlice matches %#v of []string', () => {
  assert.equal(goStringSlice([]), '[]string{}');
  assert.equal(goStringSlice(['a', 'b"']), '[]string{"a", "b\\""}');
});
