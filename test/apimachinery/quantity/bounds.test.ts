// Quantities are bounded before any arithmetic: a value whose exact integer form would take seconds
// to build (a huge exponent) or to canonicalize (a long run of digits) is a parse error, answered
// at once. Go keeps such values symbolically in inf.Dec (only the int32 exponent is bounded, see
// staging/src/k8s.io/apimachinery/pkg/api/resource/suffix.go interpret); we refuse them instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_QUANTITY_DIGITS,
  MAX_QUANTITY_EXPONENT,
  QuantityError,
  parseQuantity,
  quantityFromJSON,
} from '../../../src/apimachinery/quantity/quantity.ts';

const TOO_LARGE = /^quantities are limited to 1000 digits and a decimal exponent of at most 1000$/;

test('huge exponents and digit runs are refused when parsed, within a deadline', () => {
  const inputs = [
    '1e100000000',
    '1e999999999',
    '-1e100000000',
    '1.5E1000000',
    `1e${MAX_QUANTITY_EXPONENT + 1}`,
    '1'.repeat(MAX_QUANTITY_DIGITS + 1),
    `0.${'0'.repeat(1_000_000)}1`,
    `${'0'.repeat(100_000)}1`,
    `1${'0'.repeat(3 << 20)}m`,
    `1e${'0'.repeat(100_000)}1`,
  ];
  for (const input of inputs) {
    const started = performance.now();
    assert.throws(
      () => parseQuantity(input),
      (e: unknown) => e instanceof QuantityError && TOO_LARGE.test(e.message),
    );
    // Before the bounds these took seconds to minutes (or built a number of hundreds of MB).
    assert.ok(performance.now() - started < 2000, `${input.slice(0, 20)}… answered before the 2 s deadline`);
  }
  assert.throws(() => quantityFromJSON('1e1000000'), QuantityError);
});

test('values at the bounds parse and stay cheap to add, compare and print', () => {
  const big = parseQuantity(`1e${MAX_QUANTITY_EXPONENT}`);
  const long = parseQuantity('9'.repeat(MAX_QUANTITY_DIGITS));
  const tiny = parseQuantity('1e-100000000');
  const started = performance.now();
  assert.equal(big.add(parseQuantity('1n')).cmp(big), 1);
  assert.equal(long.cmp(big), -1);
  assert.equal(tiny.toString(), '1e-9', 'sub-nano values still round up to 1n whatever the exponent');
  assert.equal(big.toString(), '10e999', 'canonical: an exponent that is a multiple of 3');
  assert.equal(long.toString().length, MAX_QUANTITY_DIGITS);
  assert.ok(performance.now() - started < 2000, 'arithmetic at the bounds answered before the 2 s deadline');
});
