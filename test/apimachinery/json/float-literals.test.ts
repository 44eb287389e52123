// Numbers written with a fraction or exponent are remembered by where they sit, so the typed
// decoding can refuse `2.0` for an integer field as Go's encoding/json does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { floatLiteralsOf, parseJsonKeepingFloatLiterals } from '../../../src/apimachinery/json/index.ts';

test("float literals outside strings are kept by JSON pointer; the parsed value is JSON.parse's", () => {
  const text = '{"a":2.0,"b":[1,1e3,{"c/d":-0.5E+2}],"s":"2.0 and 1e3 in a string","n":7,"k~":3.25}';
  const value = parseJsonKeepingFloatLiterals(text) as object;
  assert.deepEqual(value, JSON.parse(text));
  assert.deepEqual(
    [...floatLiteralsOf(value)!.entries()],
    [
      ['/a', '2.0'],
      ['/b/1', '1e3'],
      ['/b/2/c~1d', '-0.5E+2'],
      ['/k~0', '3.25'],
    ],
  );
});

test('bodies with no such numbers, or with them only inside strings, carry nothing', () => {
  for (const text of ['{"a":2,"b":[1,2]}', '{"v":"1.0","w":"x\\"2.5"}', '[]', '"3.5"']) {
    const value = parseJsonKeepingFloatLiterals(text);
    if (value !== null && typeof value === 'object') assert.equal(floatLiteralsOf(value), undefined, text);
  }
  assert.throws(() => parseJsonKeepingFloatLiterals('{"a":2.}'), SyntaxError);
});
