// goBase64Error against the offsets Go's own test table gives for base64.StdEncoding.Decode
// (src/encoding/base64/base64_test.go, TestDecodeCorrupt): -1 means the input decodes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goBase64Error } from '../../../src/apimachinery/strings/index.ts';

const GO_CASES: Array<[string, number]> = [
  ['', -1],
  ['\n', -1],
  ['AAA=\n', -1],
  ['AAAA\n', -1],
  ['!!!!', 0],
  ['====', 0],
  ['x===', 1],
  ['=AAA', 0],
  ['A=AA', 1],
  ['AA=A', 2],
  ['AA==A', 4],
  ['AAA=AAAA', 4],
  ['AAAAA', 4],
  ['AAAAAA', 4],
  ['A=', 1],
  ['A==', 1],
  ['AA=', 3],
  ['AA==', -1],
  ['AAA=', -1],
  ['AAAA', -1],
  ['AAAAAA=', 7],
  ['YWJjZA=====', 8],
  ['A!\n', 1],
  ['A=\n', 1],
];

test("goBase64Error: the offset Go's decoder reports, for each of Go's own cases", () => {
  for (const [input, offset] of GO_CASES) {
    assert.equal(
      goBase64Error(input),
      offset === -1 ? undefined : `illegal base64 data at input byte ${offset}`,
      JSON.stringify(input),
    );
  }
});

test('goBase64Error: newlines inside are skipped, offsets count UTF-8 bytes', () => {
  assert.equal(goBase64Error('aGVs\r\nbG8='), undefined);
  assert.equal(goBase64Error(Buffer.from('a longer text, over eight bytes').toString('base64')), undefined);
  assert.equal(goBase64Error('not base64'), 'illegal base64 data at input byte 3');
  // A non-ASCII character is corrupt at its first byte; what follows it counts its two bytes.
  assert.equal(goBase64Error('AAé'), 'illegal base64 data at input byte 2');
  assert.equal(goBase64Error('éA!A'), 'illegal base64 data at input byte 0');
  assert.equal(goBase64Error('AAAA\néA'), 'illegal base64 data at input byte 5');
});
