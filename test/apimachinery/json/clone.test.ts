// cloneJson copies as a JSON round trip would, without the text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cloneJson } from '../../../src/apimachinery/json/index.ts';

const viaText = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

describe('cloneJson', () => {
  it('gives what JSON.parse(JSON.stringify(v)) gives, edge cases included', () => {
    const proto = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const cases: unknown[] = [
      { kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', ports: [] }] } },
      { n: [1, -0, 1.5, NaN, Infinity, -Infinity], s: '', b: false, z: null },
      { gone: undefined, f: () => 1, sym: Symbol('x'), kept: 0 },
      [undefined, () => 1, Symbol('y'), null, 'x', [[]], {}],
      { when: new Date(0), buf: Buffer.from('hi'), map: new Map([[1, 2]]), set: new Set([1]) },
      { toJSON: () => ({ replaced: true }) },
      Object.assign(Object.create(null) as Record<string, unknown>, { bare: { deep: [1] } }),
      proto,
      { 2: 'b', 1: 'a', x: 'c' },
      'text',
      7,
      null,
      true,
    ];
    for (const c of cases) {
      const copy = cloneJson(c);
      assert.deepStrictEqual(copy, viaText(c));
      assert.deepEqual(JSON.stringify(copy), JSON.stringify(c), 'the same text, key order included');
    }
    const copied = cloneJson(proto);
    assert.ok(Object.prototype.hasOwnProperty.call(copied, '__proto__'), 'an own __proto__ member stays data');
    assert.equal(Object.getPrototypeOf(copied), Object.prototype);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    assert.ok(Object.is(cloneJson(-0), 0));
  });

  it('is a deep copy', () => {
    const o = { a: { b: [{ c: 1 }] } };
    const c = cloneJson(o);
    c.a.b[0].c = 2;
    assert.equal(o.a.b[0].c, 1);
  });

  it('fails where JSON fails, and keeps undefined as undefined', () => {
    assert.throws(() => cloneJson(10n), TypeError);
    assert.throws(() => cloneJson({ big: 10n }), TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => cloneJson(cyclic));
    assert.equal(cloneJson(undefined), undefined);
  });
});
