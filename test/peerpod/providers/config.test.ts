// Shared config parsing: upstream's list/TAGS formats, instance type selection, error listing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigCheck,
  parseBool,
  parseList,
  parseTags,
  selectInstanceType,
} from '../../../src/peerpod/providers/config.ts';
import { InvalidRequestError, ProviderConfigError } from '../../../src/peerpod/providers/errors.ts';
import { matchesTags, mergeTags } from '../../../src/peerpod/providers/tags.ts';

describe('provider config helpers', () => {
  it('parses upstream TAGS and lists', () => {
    assert.deepEqual(parseTags('a=1, b = x=y ,c='), { a: '1', b: 'x=y', c: '' });
    assert.equal(parseTags('novalue'), undefined);
    assert.deepEqual(parseTags(''), {});
    assert.deepEqual(parseList(' sg-1,,sg-2 '), ['sg-1', 'sg-2']);
    assert.equal(parseBool('TRUE'), true);
    assert.equal(parseBool('0'), false);
    assert.equal(parseBool('maybe'), undefined);
  });

  it('selects instance types like upstream VerifyCloudInstanceType', () => {
    assert.equal(selectInstanceType('aws', undefined, [], 'm6a.large'), 'm6a.large');
    assert.equal(selectInstanceType('aws', 'm6a.large', [], 'm6a.large'), 'm6a.large');
    assert.throws(() => selectInstanceType('aws', 'x1', [], 'm6a.large'), InvalidRequestError);
    assert.equal(selectInstanceType('aws', 'x1', ['x1', 'x2'], 'm6a.large'), 'x1');
    assert.throws(() => selectInstanceType('aws', 'x3', ['x1', 'x2'], 'm6a.large'), /not in the allowed list/);
  });

  it('ConfigCheck names every missing and invalid key, treating blank as missing', () => {
    const check = new ConfigCheck('demo', { A: ' ', B: 'x', N: 'ten' })
      .require('A', 'B', 'C')
      .check('N', (v) => /^\d+$/.test(v), 'integer');
    assert.throws(
      () => check.throwIfAny(),
      (err: Error) =>
        err instanceof ProviderConfigError &&
        err.message === 'demo provider config: missing A, C; invalid N (integer)' &&
        err.missing.join() === 'A,C',
    );
  });

  it('tag filters need every pair, exactly', () => {
    assert.ok(matchesTags({ a: '1', b: '2' }, {}));
    assert.ok(matchesTags({ a: '1', b: '2' }, { a: '1' }));
    assert.ok(!matchesTags({ a: '1' }, { a: '1', b: '2' }));
    assert.ok(!matchesTags({ a: 'X' }, { a: 'x' }));
    assert.ok(!matchesTags({}, { toString: '' }));
    assert.deepEqual(mergeTags({ a: '1', b: '1' }, { b: '2' }), { a: '1', b: '2' });
  });
});
