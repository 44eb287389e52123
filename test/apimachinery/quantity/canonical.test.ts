import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, tryQuantityFromJSON } from '../../../src/apimachinery/quantity/quantity.ts';

describe('canonical quantities', () => {
  // [input, canonical as Quantity.String(), canonical after ResourceList's milli round-up]
  const cases: [string | number | null, string, string][] = [
    ['0.5', '500m', '500m'],
    [0.5, '500m', '500m'],
    ['1.5', '1500m', '1500m'],
    ['100m', '100m', '100m'],
    ['1000m', '1', '1'],
    ['1000', '1k', '1k'],
    [2, '2', '2'],
    ['0', '0', '0'],
    ['-0', '0', '0'],
    ['1024Mi', '1Gi', '1Gi'],
    ['2000Mi', '2000Mi', '2000Mi'],
    ['1536Mi', '1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi', '512Mi'],
    ['1.5Ki', '1536', '1536'],
    ['0.5Ki', '512', '512'],
    ['1Ki', '1Ki', '1Ki'],
    ['0.1Gi', '107374182400m', '107374182400m'],
    ['128974848', '128974848', '128974848'],
    ['129e6', '129e6', '129e6'],
    ['1e3', '1e3', '1e3'],
    ['1.5e3', '1500', '1500'],
    ['12E', '12E', '12E'],
    ['100n', '100n', '1m'],
    ['0.0001', '100u', '1m'],
    ['-0.0001', '-100u', '-1m'],
    // Upstream keeps input text that already looks canonical, and reads a bare suffix or null as zero.
    ['+5k', '+5k', '+5k'],
    ['Mi', '0', '0'],
    [null, '0', '0'],
    ['.5', '500m', '500m'],
  ];
  for (const [input, plain, rounded] of cases) {
    it(`${JSON.stringify(input)} → ${plain} / ${rounded}`, () => {
      assert.equal(canonicalQuantity(input), plain);
      assert.equal(canonicalQuantity(input, true), rounded);
    });
  }

  for (const bad of ['', '1Gb', 'lots', '1.2.3', '1 Gi', true, {}]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(canonicalQuantity(bad), undefined));
  }

  it('compares across suffixes', () => {
    const q = (s: string) => {
      const v = tryQuantityFromJSON(s);
      assert.ok(v);
      return v;
    };
    assert.equal(q('1Gi').cmp(q('1024Mi')), 0);
    assert.equal(q('1G').cmp(q('1Gi')), -1);
    assert.equal(q('1500m').cmp(q('1.5')), 0);
    assert.equal(q('2').cmp(q('1999m')), 1);
  });
});
