import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isValidQuantity,
  parseQuantity,
  type Quantity,
  QuantityError,
  quantityFromJSON,
} from '../../../src/apimachinery/quantity/quantity.ts';

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX = "unable to parse quantity's suffix";

test('canonical text of non-canonical input (kube TestQuantityParseEmit/TestQuantityString alternates)', () => {
  const table: Array<[string, string]> = [
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    ['307200Ki', '300Mi'],
    ['1025024Mi', '1001Gi'],
    ['1024Gi', '1Ti'],
    ['5000m', '5'],
    ['0.001T', '1G'],
    ['1000u', '1m'],
    ['1.08', '1080m'],
    ['1080000000n', '1080m'],
    ['.001e12', '1e9'],
    ['0.001e0', '1e-3'],
    ['1000e-12', '1e-9'],
    ['00', '0'],
    ['0.0005k', '500m'],
    ['9.01', '9010m'],
    ['1.2e3', '1200'],
    ['1.3E+6', '1300e3'],
    ['0.5e-1', '50e-3'],
    ['3.001n', '4n'],
    ['0.00000012345', '124n'],
    ['1.1E-9', '2e-9'],
    ['0.5e-9', '1e-9'],
    ['100.035Ki', '102435840m'],
    ['0.5Mi', '512Ki'],
    ['0.05Gi', '53687091200m'],
    ['0.5Ki', '512'],
    ['1.0005Ki', '1024512m'],
    ['-1.5Gi', '-1536Mi'],
    ['-0.5', '-500m'],
    ['8Ki', '8Ki'],
    ['16Gi', '16Gi'],
    ['1000k', '1M'],
    ['1000E', '1'], // upstream prints no suffix past E
    ['9Ei', '9223372036854775807'], // clamped to MaxInt64, not a whole number of any binary unit
    ['1e100', '10e99'],
  ];
  for (const [input, want] of table) assert.equal(parseQuantity(input).toString(), want, input);
});

test('already-canonical input is echoed verbatim, as upstream caches it', () => {
  const table = [
    '1Gi',
    '300Mi',
    '6Ki',
    '1001Gi',
    '5',
    '500m',
    '1G',
    '1m',
    '80m',
    '1080m',
    '300M',
    '1T',
    '1234567M',
    '3k',
    '1025',
    '0',
    '1e9',
    '1e-3',
    '1e-9',
    '80e-3',
    '300e6',
    '1e12',
    '1e3',
    '3e3',
    '1n',
    '80n',
    '1u',
    '7Mi',
    '50k',
    '40T',
    '12E',
    '100m',
    // Quirks: these look "short enough", so kube-apiserver returns them unchanged.
    '1.',
    '+1',
    '01',
    '1.500',
    '100.035k',
    '5.444T',
    '1.G',
  ];
  for (const input of table) assert.equal(parseQuantity(input).toString(), input, input);
  // canonical() ignores the remembered text.
  assert.equal(parseQuantity('100.035k').canonical(), '100035');
  assert.equal(parseQuantity('5.444T').canonical(), '5444G');
  assert.equal(parseQuantity('01').canonical(), '1');
  assert.equal(parseQuantity('1.').canonical(), '1');
});

test('format of parsed quantities', () => {
  const table: Array<[string, string]> = [
    ['1Ki', 'BinarySI'],
    ['1k', 'DecimalSI'],
    ['1e3', 'DecimalExponent'],
    ['1', 'DecimalSI'],
    ['0.000000000001Ki', 'DecimalSI'], // rounds up below 1 and loses the binary format
    ['9Ei', 'BinarySI'],
  ];
  for (const [input, want] of table) assert.equal(parseQuantity(input).format, want, input);
});

test('invalid quantities throw QuantityError with upstream messages', () => {
  const table: Array<[string, string]> = [
    ['', FORMAT_WRONG],
    ['1.1.M', FORMAT_WRONG],
    ['1+1.0M', FORMAT_WRONG],
    ['0.1am', FORMAT_WRONG],
    ['aoeu', FORMAT_WRONG],
    [' 1', FORMAT_WRONG],
    ['1 ', FORMAT_WRONG],
    ['1Gi ', FORMAT_WRONG],
    ['25%', FORMAT_WRONG],
    ['0.1mi', SUFFIX],
    ['.5i', SUFFIX],
    ['1i', SUFFIX],
    ['-3.01i', SUFFIX],
    ['-3.01e-', SUFFIX],
    ['32MMi', SUFFIX],
    ['1e', SUFFIX],
    ['.e-12', 'unable to parse numeric part of quantity'],
  ];
  for (const [input, want] of table) {
    assert.throws(
      () => parseQuantity(input),
      (e: unknown) => e instanceof QuantityError && e.message === want,
      JSON.stringify(input),
    );
    assert.equal(isValidQuantity(input), false);
  }
  // Odd but accepted upstream: sign or dot alone is zero.
  for (const input of ['.', '-', '+', '-0', '+.']) assert.equal(parseQuantity(input).toString(), '0', input);
});

test('comparison', () => {
  const table: Array<[string, string, number]> = [
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1Gi', '1024Mi', 0],
    ['1k', '1000', 0],
    ['1e3', '1k', 0],
    ['-1', '1m', -1],
    ['-2', '-1', -1],
    ['1e100', '1E', 1],
    ['1n', '0', 1],
  ];
  for (const [a, b, want] of table) {
    assert.equal(parseQuantity(a).cmp(parseQuantity(b)), want, `${a} vs ${b}`);
    assert.equal(parseQuantity(b).cmp(parseQuantity(a)), -want || 0, `${b} vs ${a}`);
  }
  assert.equal(parseQuantity('1Gi').equals(parseQuantity('1073741824')), true);
});

test('addition and subtraction keep the receiver format (the other one when zero)', () => {
  const q = (s: string): Quantity => parseQuantity(s);
  assert.equal(q('100m').add(q('0')).toString(), '100m');
  assert.equal(q('0').add(q('100m')).toString(), '100m');
  assert.equal(q('1Gi').add(q('0')).toString(), '1Gi');
  assert.equal(q('0').add(q('1Gi')).toString(), '1Gi');
  assert.equal(q('0').sub(q('100m')).toString(), '-100m');
  assert.equal(q('1Gi').add(q('512Mi')).toString(), '1536Mi');
  assert.equal(q('500m').add(q('500m')).toString(), '1');
  assert.equal(q('1').add(q('1Ki')).toString(), '1025');
  assert.equal(q('1Ki').add(q('1')).toString(), '1025');
  assert.equal(q('1Gi').sub(q('1Gi')).toString(), '0');
  assert.equal(q('1.5').neg().toString(), '-1500m');
});

test('RoundUp (kube TestQuantityRoundUp)', () => {
  const table: Array<[string, number, string, boolean]> = [
    ['9.01', -3, '9010m', true],
    ['9.01', -2, '9010m', true],
    ['9.01', -1, '9100m', false],
    ['9.01', 0, '10', false],
    ['9.01', 1, '10', false],
    ['9.01', 2, '100', false],
    ['-9.01', -3, '-9010m', true],
    ['-9.01', -1, '-9100m', false],
    ['-9.01', 0, '-10', false],
    ['-9.01', 2, '-100', false],
    ['1n', -3, '1m', false],
  ];
  for (const [input, scale, want, exact] of table) {
    const r = parseQuantity(input).roundUp(scale);
    assert.equal(r.quantity.toString(), want, `${input} @ ${scale}`);
    assert.equal(r.exact, exact, `${input} @ ${scale}`);
  }
  // A value already coarse enough keeps its text.
  assert.equal(parseQuantity('1.500').roundUp(-3).quantity.toString(), '1.500');
});

test('toMilli and toNumber round up like MilliValue and Value', () => {
  const table: Array<[string, bigint, number]> = [
    ['1', 1000n, 1],
    ['500m', 500n, 1],
    ['1.5', 1500n, 2],
    ['100m', 100n, 1],
    ['1n', 1n, 1],
    ['0', 0n, 0],
    ['1Gi', 1073741824000n, 1073741824],
    ['1.5Gi', 1610612736000n, 1610612736],
    ['128974848', 128974848000n, 128974848],
    ['129e6', 129000000000n, 129000000],
    ['123Mi', 128974848000n, 128974848],
    ['-1.5', -1500n, -2],
  ];
  for (const [input, milli, value] of table) {
    assert.equal(parseQuantity(input).toMilli(), milli, input);
    assert.equal(parseQuantity(input).toNumber(), value, input);
  }
  assert.equal(parseQuantity('9Ei').toBigInt(), 2n ** 63n - 1n);
  // A value too large for an integer form is refused when parsed, before any arithmetic.
  assert.throws(() => parseQuantity('1e100000').toMilli(), QuantityError);
});

test('quantityFromJSON follows Quantity.UnmarshalJSON', () => {
  assert.equal(quantityFromJSON(' 1 ').toString(), '1');
  assert.equal(quantityFromJSON('0.5').toString(), '500m');
  assert.equal(quantityFromJSON(0.5).toString(), '500m');
  assert.equal(quantityFromJSON(2).toString(), '2');
  assert.equal(quantityFromJSON(-1).toString(), '-1');
  assert.equal(quantityFromJSON(null).toString(), '0');
  for (const bad of [true, {}, [], 'abc', Number.NaN]) {
    assert.throws(() => quantityFromJSON(bad), QuantityError, JSON.stringify(bad));
  }
  assert.equal(JSON.stringify({ cpu: parseQuantity('0.5') }), '{"cpu":"500m"}');
});

test('scaled values in nano-units round sub-nano amounts up', () => {
  const table: Array<[string, bigint]> = [
    ['1', 1_000_000_000n],
    ['500m', 500_000_000n],
    ['1Ki', 1024_000_000_000n],
    ['1.5', 1_500_000_000n],
    ['.5', 500_000_000n],
    ['1e3', 1000_000_000_000n],
    ['1E', 10n ** 27n],
    ['1n', 1n],
    ['0.1n', 1n],
  ];
  for (const [q, n] of table) assert.equal(parseQuantity(q).scaledValue(-9), n, q);
});
