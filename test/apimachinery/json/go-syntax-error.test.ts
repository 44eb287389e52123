// Go's encoding/json syntax errors (src/encoding/json/scanner.go: quoteChar, the state functions'
// contexts, "unexpected end of JSON input" and maxNestingDepth), which kube-apiserver quotes in
// its decode errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from '../../../src/apimachinery/json/index.ts';

const CASES: Array<[string, string | undefined]> = [
  ['apiVersion: v1\nkind: Namespace\n', "invalid character 'a' looking for beginning of value"],
  ['', 'unexpected end of JSON input'],
  ['  \n', 'unexpected end of JSON input'],
  ['{"a":', 'unexpected end of JSON input'],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
  ['[1 2]', "invalid character '2' after array element"],
  ['[1,]', "invalid character ']' looking for beginning of value"],
  ['"a\tb"', "invalid character '\\t' in string literal"],
  ['"\\x"', "invalid character 'x' in string escape code"],
  ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
  ['-a', "invalid character 'a' in numeric literal"],
  ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
  ['1e+x', "invalid character 'x' in exponent of numeric literal"],
  ['trux', "invalid character 'x' in literal true (expecting 'e')"],
  ['nil', "invalid character 'i' in literal null (expecting 'u')"],
  ['{} x', "invalid character 'x' after top-level value"],
  ['01', "invalid character '1' after top-level value"],
  ["'a'", "invalid character '\\'' looking for beginning of value"],
  ['\u00e9', "invalid character 'Ã' looking for beginning of value"],
  ['['.repeat(10_001), "invalid character '[' exceeded max depth"],
  ['{"a":[true,false,null,-0.5e-3,"\\u00e9\\n"],"b":{}}', undefined],
];

for (const [input, expected] of CASES) {
  test(`Go's error for ${JSON.stringify(input.slice(0, 24))}`, () => {
    assert.equal(goJsonSyntaxError(input), expected);
  });
}

test('deep but valid nesting is scanned without recursion', () => {
  assert.equal(goJsonSyntaxError('['.repeat(10_000) + ']'.repeat(10_000)), undefined);
});
