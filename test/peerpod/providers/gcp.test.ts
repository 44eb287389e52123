// The gcp provider through the real compute client (REST transport) with a fake fetch: request
// bodies, operation waits, pageToken paging, 404 on delete, throttling.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  InvalidInstanceIdError,
  ProviderConfigError,
  QuotaExceededError,
  ThrottledError,
} from '../../../src/peerpod/providers/errors.ts';
import { labelFilter, toLabels } from '../../../src/peerpod/providers/gcp/labels.ts';
import type { GcpProvider } from '../../../src/peerpod/providers/gcp/provider.ts';
import { createProvider } from '../../../src/peerpod/providers/registry.ts';
import { FakeGce, gceError, operation } from './fake-gce.ts';
import { request, silent } from './helpers.ts';

const ZONE = 'europe-west4-a';
const CONFIG = {
  GCP_PROJECT_ID: 'proj-1',
  GCP_ZONE: ZONE,
  GCP_NETWORK: 'global/networks/default',
  GCP_SUBNETWORK: 'pods',
  PODVM_IMAGE_NAME: 'podvm-image',
  GCP_CONFIDENTIAL_TYPE: 'SEV',
  TAGS: 'team=pods',
};
const Z = `/zones/${ZONE}`;
const NAME = 'podvm-web-0-12345678';

function gceInstance(name: string, tags?: Record<string, string>, extra: Record<string, unknown> = {}) {
  return {
    kind: 'compute#instance',
    id: '987654321',
    name,
    status: 'RUNNING',
    creationTimestamp: '2026-02-03T04:05:06.000-08:00',
    networkInterfaces: [{ networkIP: '10.164.0.7', accessConfigs: [{ natIP: '34.1.2.3' }] }],
    labels: tags ? toLabels(tags) : {},
    metadata: { items: tags ? [{ key: 'peerpods-tags', value: JSON.stringify(tags) }] : [] },
    ...extra,
  };
}

async function provider(fake: FakeGce, config: Record<string, string> = CONFIG): Promise<GcpProvider> {
  return (await createProvider('gcp', config, {
    logger: silent,
    // Any object with getRequestHeaders is taken as the auth client; its fetch is the transport.
    gcp: { clientOptions: { authClient: fake.authClient as never } },
  })) as GcpProvider;
}

describe('gcp provider (compute REST client, fake fetch)', () => {
  it('inserts with upstream parameters, waits for the zonal operation and reads the NIC IP', async () => {
    const fake = new FakeGce()
      .once('GET', new RegExp(`instances/${NAME}$`), gceError(404, 'notFound', `The resource '${NAME}' was not found`))
      .once('GET', /global\/images\/podvm-image$/, { body: { name: 'podvm-image', diskSizeGb: '20' } })
      .once('POST', /instances$/, operation('op-1', 'RUNNING'))
      .once('POST', /operations\/op-1\/wait$/, operation('op-1', 'RUNNING'))
      .once('POST', /operations\/op-1\/wait$/, operation('op-1', 'DONE'))
      .once('GET', new RegExp(`instances/${NAME}$`), {
        body: gceInstance(NAME, { team: 'pods', 'caa-cluster-uid': 'UID.1' }),
      });
    const p = await provider(fake);
    const vm = await p.createInstance(
      request('web-0', '1234567890', { tags: { 'caa-cluster-uid': 'UID.1' }, userData: 'hello' }),
    );
    assert.deepEqual(fake.summary(), [
      `GET ${Z}/instances/${NAME}`,
      `GET /global/images/podvm-image`,
      `POST ${Z}/instances`,
      `POST ${Z}/operations/op-1/wait`,
      `POST ${Z}/operations/op-1/wait`,
      `GET ${Z}/instances/${NAME}`,
    ]);
    const body = fake.calls[2].body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON body under test
    assert.equal(body.name, NAME);
    assert.equal(body.machineType, `zones/${ZONE}/machineTypes/e2-medium`);
    assert.deepEqual(body.labels, { team: 'pods', 'caa-cluster-uid': 'uid_1' });
    const disk = body.disks[0];
    assert.equal(disk.boot, true);
    assert.equal(disk.autoDelete, true);
    assert.equal(disk.initializeParams.sourceImage, 'projects/proj-1/global/images/podvm-image');
    assert.equal(disk.initializeParams.diskSizeGb, '20', 'the image is larger than ROOT_VOLUME_SIZE');
    assert.equal(disk.initializeParams.diskType, `zones/${ZONE}/diskTypes/pd-standard`);
    assert.deepEqual(body.metadata.items, [
      { key: 'peerpods-tags', value: JSON.stringify({ team: 'pods', 'caa-cluster-uid': 'UID.1' }) },
      { key: 'user-data', value: Buffer.from('hello').toString('base64') },
      { key: 'user-data-encoding', value: 'base64' },
    ]);
    assert.equal(body.networkInterfaces[0].network, 'global/networks/default');
    assert.equal(body.networkInterfaces[0].subnetwork, 'projects/proj-1/regions/europe-west4/subnetworks/pods');
    assert.deepEqual(body.confidentialInstanceConfig, {
      confidentialInstanceType: 'SEV',
      enableConfidentialCompute: true,
    });
    assert.equal(body.scheduling.onHostMaintenance, 'TERMINATE');
    assert.equal(vm.id, NAME);
    assert.equal(vm.name, NAME);
    assert.deepEqual(vm.ips, ['10.164.0.7']);
    assert.deepEqual(vm.tags, { team: 'pods', 'caa-cluster-uid': 'UID.1' });
    assert.equal(vm.createdAt.toISOString(), '2026-02-03T12:05:06.000Z');
  });

  it('adopts when the instance already exists, found first or reported by insert as a 409', async () => {
    const fake = new FakeGce().once('GET', new RegExp(`instances/${NAME}$`), { body: gceInstance(NAME, { a: 'b' }) });
    assert.equal((await (await provider(fake)).createInstance(request('web-0', '12345678'))).id, NAME);
    assert.equal(fake.calls.length, 1);

    const racing = new FakeGce()
      .once('GET', new RegExp(`instances/${NAME}$`), gceError(404, 'notFound', 'not found'))
      .once('GET', /global\/images\//, { body: { diskSizeGb: '10' } })
      .once('POST', /instances$/, gceError(409, 'alreadyExists', `The resource '${NAME}' already exists`))
      .once('GET', new RegExp(`instances/${NAME}$`), { body: gceInstance(NAME, {}) });
    assert.equal((await (await provider(racing)).createInstance(request('web-0', '12345678'))).id, NAME);
  });

  it('an insert operation that ends in QUOTA_EXCEEDED is a QuotaExceededError', async () => {
    const fake = new FakeGce()
      .once('GET', new RegExp(`instances/${NAME}$`), gceError(404, 'notFound', 'not found'))
      .once('GET', /global\/images\//, { body: { diskSizeGb: '10' } })
      .once(
        'POST',
        /instances$/,
        operation('op-q', 'DONE', { code: 'QUOTA_EXCEEDED', message: "Quota 'CPUS' exceeded. Limit: 8.0" }),
      );
    await assert.rejects((await provider(fake)).createInstance(request('web-0', '12345678')), QuotaExceededError);
  });

  it('deletes by name and waits; 404 and an operation ending in RESOURCE_NOT_FOUND are success', async () => {
    const fake = new FakeGce()
      .once('DELETE', new RegExp(`instances/${NAME}$`), operation('op-d', 'RUNNING'))
      .once('POST', /operations\/op-d\/wait$/, operation('op-d', 'DONE'))
      .once(
        'DELETE',
        new RegExp(`instances/${NAME}$`),
        gceError(404, 'notFound', `The resource '${NAME}' was not found`),
      )
      .once(
        'DELETE',
        new RegExp(`instances/${NAME}$`),
        operation('op-e', 'DONE', { code: 'RESOURCE_NOT_FOUND', message: 'gone' }),
      );
    const p = await provider(fake);
    await p.deleteInstance(NAME);
    await p.deleteInstance(NAME);
    await p.deleteInstance(NAME);
    assert.deepEqual(fake.summary(), [
      `DELETE ${Z}/instances/${NAME}`,
      `POST ${Z}/operations/op-d/wait`,
      `DELETE ${Z}/instances/${NAME}`,
      `DELETE ${Z}/instances/${NAME}`,
    ]);
    await assert.rejects(p.deleteInstance('Not_A_Name'), InvalidInstanceIdError);
    assert.equal(fake.calls.length, 4);
  });

  it('lists with a label filter, follows pageToken, and matches the exact tags', async () => {
    const tags = { 'caa-cluster-uid': 'UID.1' };
    const fake = new FakeGce()
      .once('GET', new RegExp(`${Z}/instances$`), {
        body: {
          items: [
            gceInstance('podvm-a-11111111', tags),
            gceInstance('podvm-b-22222222', { 'caa-cluster-uid': 'uid_1' }), // same label, other tag
            gceInstance('not-a-pod-vm', tags),
          ],
          nextPageToken: 'tok-2',
        },
      })
      .once('GET', new RegExp(`${Z}/instances$`), {
        body: { items: [gceInstance('podvm-c-33333333', { ...tags, x: 'y' })] },
      });
    const list = await (await provider(fake)).listInstances(tags);
    assert.deepEqual(
      list.map((i) => [i.id, i.ips, i.tags]),
      [
        ['podvm-a-11111111', ['10.164.0.7'], tags],
        ['podvm-c-33333333', ['10.164.0.7'], { ...tags, x: 'y' }],
      ],
    );
    assert.equal(fake.calls[0].url.searchParams.get('filter'), '(labels.caa-cluster-uid = "uid_1")');
    assert.equal(fake.calls[0].url.searchParams.get('pageToken'), null);
    assert.equal(fake.calls[1].url.searchParams.get('pageToken'), 'tok-2');
    assert.equal(labelFilter({ 'Odd Key': 'V', '9x': '' }), '(labels.odd_key = "v") (labels.k9x = "")');
  });

  it('throttling: list is retried by the client on 503; a 429 on delete surfaces as ThrottledError', async () => {
    const fake = new FakeGce()
      .once('GET', /instances$/, gceError(503, 'backendError', 'Backend Error'))
      .once('GET', /instances$/, { body: { items: [] } });
    assert.deepEqual(await (await provider(fake)).listInstances({}), []);
    assert.equal(fake.calls.length, 2);

    const limited = new FakeGce().on(
      'DELETE',
      /instances\//,
      gceError(429, 'rateLimitExceeded', 'Rate Limit Exceeded'),
    );
    await assert.rejects((await provider(limited)).deleteInstance(NAME), (err: Error) => {
      assert.ok(err instanceof ThrottledError);
      assert.equal(err.retryable, true);
      return true;
    });
  });

  it('verifyConfig lists the missing keys', async () => {
    await assert.rejects((await provider(new FakeGce(), {})).verifyConfig(), (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.deepEqual(err.missing, [
        'GCP_PROJECT_ID',
        'GCP_ZONE',
        'GCP_NETWORK',
        'PODVM_IMAGE_NAME',
        'GCP_CONFIDENTIAL_TYPE',
      ]);
      return true;
    });
    await (await provider(new FakeGce())).verifyConfig();
    await (await provider(new FakeGce(), { ...CONFIG, GCP_CONFIDENTIAL_TYPE: '', DISABLECVM: 'true' })).verifyConfig();
  });
});
