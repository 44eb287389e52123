// The demo's step runner: timings, one line per step, and the run ending at the first failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSteps } from '../../src/peerpod/index.ts';

describe('demo step runner', () => {
  it('prints ✓ lines with details and stops at the first ✗', async () => {
    const lines: string[] = [];
    const ran: string[] = [];
    const results = await runSteps(
      [
        {
          title: 'one',
          run: async () => {
            ran.push('one');
            return 'fine';
          },
        },
        {
          title: 'two',
          run: async () => {
            ran.push('two');
            throw new Error('broke');
          },
        },
        {
          title: 'three',
          run: async () => {
            ran.push('three');
          },
        },
      ],
      {},
      (l) => lines.push(l),
    );
    assert.deepEqual(ran, ['one', 'two']);
    assert.deepEqual(
      results.map((r) => [r.title, r.ok]),
      [
        ['one', true],
        ['two', false],
      ],
    );
    assert.match(lines[0], /^✓ {2}1\. one \( *\d+\.\d\d s\) — fine$/);
    assert.match(lines[1], /^✗ {2}2\. two \( *\d+\.\d\d s\) — broke$/);
  });
});
