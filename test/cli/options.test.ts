// The option parsers the CLI commands share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBindAddress, parseDurationFlag } from '../../src/cli/options.ts';

describe('CLI options', () => {
  it('parses durations and bind addresses as the CLI takes them', () => {
    assert.equal(parseDurationFlag('10m'), 600_000);
    assert.equal(parseDurationFlag('1m30s'), 90_000);
    assert.equal(parseDurationFlag('250ms'), 250);
    assert.throws(() => parseDurationFlag('10'));
    assert.throws(() => parseDurationFlag('5x'));
    assert.deepEqual(parseBindAddress(':8081'), { host: '0.0.0.0', port: 8081 });
    assert.equal(parseBindAddress('0'), false);
  });
});
