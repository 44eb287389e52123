// A kind in several versions is one definition per version (customResourceDefinition), merged into
// one CRD whose versions say which one objects are stored in.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceDefinition, mergeCrdVersions } from '../../../src/runtime/crd/builder.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';

const def = (version: string, storage?: boolean): KubeObject =>
  customResourceDefinition({
    group: 'example.com',
    version,
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
    openAPIV3Schema: { type: 'object' },
    ...(storage === undefined ? {} : { storage }),
  });

const versionsOf = (crd: KubeObject) =>
  (crd.spec as { versions: Array<{ name: string; storage: boolean }> }).versions.map((v) => [v.name, v.storage]);

describe('mergeCrdVersions', () => {
  it('merges the versions of one CRD, sorted by name, keeping each one’s storage flag', () => {
    const merged = mergeCrdVersions([def('v1alpha1'), def('v1', false)]);
    assert.equal(merged.length, 1);
    assert.deepEqual(versionsOf(merged[0]), [
      ['v1', false],
      ['v1alpha1', true],
    ]);
    assert.deepEqual(versionsOf(mergeCrdVersions([def('v2')])[0]), [['v2', true]]);
  });

  it('refuses no storage version, two of them, or a version defined twice', () => {
    assert.throws(
      () => mergeCrdVersions([def('v1', false), def('v2', false)]),
      /CRD widgets\.example\.com needs exactly one storage version, has none/,
    );
    assert.throws(() => mergeCrdVersions([def('v1'), def('v2')]), /has v1, v2: set storage: false on the others/);
    assert.throws(() => mergeCrdVersions([def('v1'), def('v1', false)]), /defines version v1 twice/);
  });
});
