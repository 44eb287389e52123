// Settings read from the ConfigMap and Secret informers: read again only when either object is
// replaced (every watch event replaces it), and a provider is rebuilt only when its settings change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InformerCredentials, LiveProviderCache } from '../../../src/peerpod/providers/index.ts';
import type { CloudProvider, CredentialInformers, DataObject } from '../../../src/peerpod/providers/index.ts';
import { silentLogger } from '../../../src/runtime/index.ts';

/** Informer caches holding one object each, replaced as a watch event would. */
function informers(): { informers: CredentialInformers; set(kind: 'configMap' | 'secret', o: DataObject): void } {
  const held: { configMap?: DataObject; secret?: DataObject } = {};
  const cache = (kind: 'configMap' | 'secret'): unknown => ({ get: () => held[kind] });
  return {
    informers: { configMaps: cache('configMap'), secrets: cache('secret') } as CredentialInformers,
    set(kind, o) {
      held[kind] = o;
    },
  };
}

const cm = (data: Record<string, string>): DataObject => ({ metadata: { name: 'peer-pods-cm' }, data });
const secret = (data: Record<string, string>): DataObject => ({
  metadata: { name: 'peer-pods-secret' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

describe('InformerCredentials', () => {
  it('answers with the same settings until an object is replaced, then with the new ones', () => {
    const inf = informers();
    inf.set('configMap', cm({ CLOUD_PROVIDER: 'aws', AWS_REGION: 'eu-west-1', 'aws.AWS_REGION': 'us-east-1' }));
    inf.set('secret', secret({ AWS_SECRET_ACCESS_KEY: 'k1' }));
    const creds = new InformerCredentials(inf.informers, 'ns', {
      configMap: 'peer-pods-cm',
      secret: 'peer-pods-secret',
    });
    const first = creds.configFor('aws');
    assert.deepEqual(first, { CLOUD_PROVIDER: 'aws', AWS_REGION: 'us-east-1', AWS_SECRET_ACCESS_KEY: 'k1' });
    assert.equal(creds.configFor('aws'), first, 'unchanged objects: the same answer');
    assert.ok(Object.isFrozen(first), 'shared answers cannot be changed by a caller');
    assert.deepEqual(creds.configFor('gcp'), {
      CLOUD_PROVIDER: 'aws',
      AWS_REGION: 'eu-west-1',
      AWS_SECRET_ACCESS_KEY: 'k1',
    });

    inf.set('secret', secret({ AWS_SECRET_ACCESS_KEY: 'k2' }));
    assert.equal(creds.configFor('aws').AWS_SECRET_ACCESS_KEY, 'k2');
    inf.set('configMap', cm({ CLOUD_PROVIDER: 'gcp' }));
    assert.deepEqual(creds.configuredProviders(), ['gcp']);
  });

  it('drives the provider cache: rebuilt when the settings change, not when an object is only replaced', async () => {
    const inf = informers();
    inf.set('configMap', cm({ CLOUD_PROVIDER: 'simulated', X: '1' }));
    const creds = new InformerCredentials(inf.informers, 'ns', {
      configMap: 'peer-pods-cm',
      secret: 'peer-pods-secret',
    });
    const built: Array<Record<string, string>> = [];
    const cache = new LiveProviderCache({
      settings: (name) => creds.configFor(name),
      logger: silentLogger(),
      factory: async (name, config) => {
        built.push({ ...config });
        return {
          name,
          createInstance: () => Promise.reject(new Error('unused')),
          deleteInstance: async () => true,
          listInstances: async () => [],
          verifyConfig: async () => undefined,
        } satisfies CloudProvider;
      },
    });
    const names = async (): Promise<string> => cache.use('simulated', async (p) => p.name);
    await names();
    await names();
    assert.equal(built.length, 1);
    inf.set('configMap', cm({ CLOUD_PROVIDER: 'simulated', X: '1' }));
    await names();
    assert.equal(built.length, 1, 'the same settings in a new object: the same provider');
    inf.set('configMap', cm({ CLOUD_PROVIDER: 'simulated', X: '2' }));
    await names();
    assert.deepEqual(
      built.map((c) => c.X),
      ['1', '2'],
    );
    await cache.close();
  });
});
