// installCrds resolves only when every served version answers a LIST: Established comes first, and
// a version's endpoint may still answer 404 for a moment after it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { installCrds } from '../../../src/runtime/crd/install.ts';
import type { CrdClient } from '../../../src/runtime/crd/install.ts';
import type { KubeObject, ResourceType } from '../../../src/runtime/client/types.ts';

const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    versions: [
      { name: 'v1', served: true, storage: true },
      { name: 'v1beta1', served: true, storage: false },
      { name: 'v1alpha1', served: false, storage: false },
    ],
  },
};

/** A fake API server: the CRD is Established at once; version `v` answers its LIST after `lateLists[v]` 404s. */
function fakeClient(lateLists: Record<string, number>) {
  const listed: string[] = [];
  const client = {
    patch: async () => crd,
    create: async () => crd,
    get: async () => ({ ...crd, status: { conditions: [{ type: 'Established', status: 'True' }] } }),
    list: async (type: ResourceType) => {
      listed.push(`${type.plural}.${type.group}/${type.version}`);
      if ((lateLists[type.version] ?? 0) > 0) {
        lateLists[type.version]--;
        throw new Error('the server could not find the requested resource');
      }
      return { apiVersion: `${type.group}/${type.version}`, kind: 'WidgetList', metadata: {}, items: [] };
    },
  } as unknown as CrdClient;
  return { client, listed };
}

describe('installCrds', () => {
  it('waits until every served version answers a LIST, and skips versions not served', async () => {
    const { client, listed } = fakeClient({ v1: 0, v1beta1: 3 });
    await installCrds(client, [crd], { fieldManager: 'test' });
    assert.deepEqual(listed, [
      'widgets.example.com/v1',
      'widgets.example.com/v1beta1',
      'widgets.example.com/v1beta1',
      'widgets.example.com/v1beta1',
      'widgets.example.com/v1beta1',
    ]);
  });

  it('gives up at the deadline, naming the version that is not served', async () => {
    const { client } = fakeClient({ v1beta1: Infinity });
    await assert.rejects(
      installCrds(client, [crd], { fieldManager: 'test', timeoutMs: 200 }),
      /widgets\.example\.com\/v1beta1 not served after 200 ms: the server could not find the requested resource/,
    );
  });
});
