// Pod VM names follow upstream's GenerateInstanceName exactly (util/instance.go at fbdde756).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateInstanceName, isPodVmName } from '../../../src/peerpod/providers/naming.ts';

describe('generateInstanceName', () => {
  it('is podvm-<pod>-<first 8 of sandbox>', () => {
    const sandbox = '4ef7f83bbef5404d0db7915191b739ef535d97a17659a87851f3d33a4da3a936';
    assert.equal(
      generateInstanceName('nginx-caa-5bddddbf56-7kfvf', sandbox),
      'podvm-nginx-caa-5bddddbf56-7kfvf-4ef7f83b',
    );
  });

  it('lowercases and turns every character outside [a-z0-9-] into one dash', () => {
    assert.equal(generateInstanceName('My_Pod.Name', 'ABCDEF12'), 'podvm-my-pod-name-abcdef12');
    assert.equal(generateInstanceName('pöd', 'x'), 'podvm-p-d-x');
    assert.equal(generateInstanceName('a😀b', '12345678'), 'podvm-a-b-12345678');
  });

  it('cuts the pod part so the name is at most the limit (63 by default)', () => {
    const name = generateInstanceName('p'.repeat(100), '1234567890');
    assert.equal(name.length, 63);
    assert.equal(name, `podvm-${'p'.repeat(48)}-12345678`);
    assert.equal(generateInstanceName('p'.repeat(48), '12345678').length, 63);
    assert.equal(generateInstanceName('p'.repeat(49), '12345678'), `podvm-${'p'.repeat(48)}-12345678`);
    assert.equal(generateInstanceName('abc', 'def', 0), 'podvm-abc-def');
    assert.equal(generateInstanceName('p'.repeat(100), 's', 0).length, 100 + 8);
    assert.throws(() => generateInstanceName('a', 'b', 14), RangeError);
  });

  it('recognises pod VM names by prefix', () => {
    assert.ok(isPodVmName('podvm-a-b'));
    assert.ok(!isPodVmName('podvmx'));
    assert.ok(!isPodVmName('web'));
  });
});
