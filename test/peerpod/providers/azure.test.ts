// The azure provider through the real compute SDK with a fake ARM transport: request bodies,
// long-running operations, nextLink paging, 404 on delete, throttling.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AzureProvider } from '../../../src/peerpod/providers/azure/provider.ts';
import { generateSshPublicKey } from '../../../src/peerpod/providers/azure/ssh-key.ts';
import {
  InvalidInstanceIdError,
  PartialCreateError,
  ProviderConfigError,
  ThrottledError,
} from '../../../src/peerpod/providers/errors.ts';
import { createProvider } from '../../../src/peerpod/providers/registry.ts';
import { ARM, armError, FakeArm, fakeCredential } from './fake-arm.ts';
import { request, silent } from './helpers.ts';

const SUB = '11111111-2222-3333-4444-555555555555';
const RG = 'peerpods-rg';
const CONFIG = {
  AZURE_SUBSCRIPTION_ID: SUB,
  AZURE_REGION: 'eastus',
  AZURE_RESOURCE_GROUP: RG,
  AZURE_SUBNET_ID: `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Network/virtualNetworks/vnet/subnets/default`,
  AZURE_IMAGE_ID: '/CommunityGalleries/cocopodvm-d0e4f35f/Images/podvm_image0/Versions/0.13.0',
  TAGS: 'team=pods',
};
const VMS = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachines`;
const NAME = 'podvm-web-0-12345678';
const VM_ID = `${VMS}/${NAME}`;
const NIC_ID = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Network/networkInterfaces/${NAME}-net`;

function vmBody(name: string, extra: Record<string, unknown> = {}, state = 'Succeeded') {
  return {
    id: `${VMS}/${name}`,
    name,
    type: 'Microsoft.Compute/virtualMachines',
    location: 'eastus',
    tags: { team: 'pods' },
    properties: {
      provisioningState: state,
      timeCreated: '2026-03-04T05:06:07Z',
      networkProfile: {
        networkInterfaces: [
          {
            id: `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Network/networkInterfaces/${name}-net`,
          },
        ],
      },
    },
    ...extra,
  };
}

const nicBody = (ip: string) => ({
  properties: { ipConfigurations: [{ name: 'ip-config', properties: { privateIPAddress: ip } }] },
});

async function provider(
  fake: FakeArm,
  config: Record<string, string> = CONFIG,
  maxRetries = 3,
): Promise<AzureProvider> {
  return (await createProvider('azure', config, {
    logger: silent,
    azure: {
      credential: fakeCredential,
      clientOptions: {
        httpClient: fake.httpClient,
        retryOptions: { maxRetries, retryDelayInMs: 1, maxRetryDelayInMs: 5 },
      },
      pollIntervalMs: 1,
      sshPublicKey: 'ssh-rsa AAAAtest',
    },
  })) as AzureProvider;
}

describe('azure provider (compute SDK, fake ARM transport)', () => {
  it('creates the VM upstream-style, waits for the long-running PUT and reads the NIC IP', async () => {
    const op = `${ARM}/subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/operations/op-1?api-version=2025-04-01`;
    const fake = new FakeArm()
      .once('GET', new RegExp(`${NAME}$`), armError(404, 'ResourceNotFound', `The Resource '${NAME}' was not found.`))
      .once('PUT', new RegExp(`${NAME}$`), {
        status: 201,
        body: vmBody(NAME, {}, 'Creating'),
        headers: { 'azure-asyncoperation': op },
      })
      .once('GET', /operations\/op-1$/, { status: 200, body: { status: 'InProgress' } })
      .once('GET', /operations\/op-1$/, { status: 200, body: { status: 'Succeeded' } })
      .once('GET', new RegExp(`${NAME}$`), { status: 200, body: vmBody(NAME) })
      .once('GET', /networkInterfaces\//, { status: 200, body: nicBody('10.1.0.4') });
    const p = await provider(fake);
    const vm = await p.createInstance(
      request('web-0', '1234567890', {
        tags: { 'caa-cluster-uid': 'uid-1' },
        userData: '#cloud-config\n',
        instanceType: '',
      }),
    );
    assert.deepEqual(fake.summary(), [
      `GET ${VM_ID}`,
      `PUT ${VM_ID}`,
      `GET /subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/operations/op-1`,
      `GET /subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/operations/op-1`,
      `GET ${VM_ID}`,
      `GET ${NIC_ID}`,
    ]);
    assert.ok(fake.calls.every((c) => c.authorization === 'Bearer fake-token'));
    assert.ok(fake.calls[1].url.searchParams.get('api-version'));
    const put = fake.calls[1].body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON body under test
    assert.equal(put.location, 'eastus');
    assert.deepEqual(put.tags, { team: 'pods', 'caa-cluster-uid': 'uid-1' });
    const props = put.properties;
    assert.equal(props.hardwareProfile.vmSize, 'Standard_DC2as_v5');
    assert.deepEqual(props.storageProfile.imageReference, { communityGalleryImageId: CONFIG.AZURE_IMAGE_ID });
    assert.equal(props.storageProfile.osDisk.name, `${NAME}-disk`);
    assert.equal(props.storageProfile.osDisk.deleteOption, 'Delete');
    assert.equal(props.storageProfile.osDisk.managedDisk.securityProfile.securityEncryptionType, 'VMGuestStateOnly');
    assert.equal(props.osProfile.computerName, NAME);
    assert.equal(props.osProfile.adminUsername, 'peerpod');
    assert.equal(props.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData, 'ssh-rsa AAAAtest');
    const nic = props.networkProfile.networkInterfaceConfigurations[0];
    assert.equal(nic.name, `${NAME}-net`);
    assert.equal(nic.properties.deleteOption, 'Delete');
    assert.equal(nic.properties.ipConfigurations[0].properties.subnet.id, CONFIG.AZURE_SUBNET_ID);
    assert.equal(props.securityProfile.securityType, 'ConfidentialVM');
    assert.equal(Buffer.from(props.userData, 'base64').toString(), '#cloud-config\n');
    assert.equal(vm.id, VM_ID);
    assert.equal(vm.name, NAME);
    assert.deepEqual(vm.ips, ['10.1.0.4']);
    assert.equal(vm.createdAt.toISOString(), '2026-03-04T05:06:07.000Z');
  });

  it('adopts an existing VM of the same name (no PUT)', async () => {
    const fake = new FakeArm()
      .once('GET', new RegExp(`${NAME}$`), { status: 200, body: vmBody(NAME) })
      .once('GET', /networkInterfaces\//, { status: 200, body: nicBody('10.1.0.9') });
    const vm = await (await provider(fake)).createInstance(request('web-0', '12345678'));
    assert.equal(vm.id, VM_ID);
    assert.deepEqual(vm.ips, ['10.1.0.9']);
    assert.ok(!fake.calls.some((c) => c.method === 'PUT'));
  });

  it('a VM whose NIC cannot be read is a PartialCreateError carrying the instance to clean up', async () => {
    const fake = new FakeArm()
      .once('GET', new RegExp(`${NAME}$`), armError(404, 'ResourceNotFound'))
      .once('PUT', new RegExp(`${NAME}$`), { status: 200, body: vmBody(NAME) })
      .on('GET', /networkInterfaces\//, armError(403, 'AuthorizationFailed', 'no network read permission'));
    await assert.rejects((await provider(fake)).createInstance(request('web-0', '12345678')), (err: Error) => {
      assert.ok(err instanceof PartialCreateError);
      assert.equal(err.instance.id, VM_ID);
      assert.match(err.message, /AuthorizationFailed/);
      return true;
    });
  });

  it('deletes through the long-running DELETE; 204 and 404 (already gone) are success', async () => {
    const loc = `${ARM}/subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/operations/del-1?monitor=true&api-version=2025-04-01`;
    const fake = new FakeArm()
      .once('DELETE', new RegExp(`${NAME}$`), { status: 202, headers: { location: loc } })
      .once('GET', /operations\/del-1$/, { status: 202, headers: { location: loc } })
      .once('GET', /operations\/del-1$/, { status: 200 })
      .once('DELETE', new RegExp(`${NAME}$`), { status: 204 })
      .once(
        'DELETE',
        new RegExp(`${NAME}$`),
        armError(404, 'ResourceGroupNotFound', `Resource group '${RG}' could not be found.`),
      );
    const p = await provider(fake);
    await p.deleteInstance(VM_ID);
    await p.deleteInstance(VM_ID);
    await p.deleteInstance(VM_ID.replace('resourceGroups', 'resourcegroups'));
    assert.deepEqual(
      fake.calls.map((c) => c.method),
      ['DELETE', 'GET', 'GET', 'DELETE', 'DELETE'],
    );
  });

  it('rejects IDs that are not VM resource IDs of its subscription, without calling ARM', async () => {
    const fake = new FakeArm();
    const p = await provider(fake);
    await assert.rejects(p.deleteInstance(NAME), InvalidInstanceIdError);
    await assert.rejects(p.deleteInstance(VM_ID.replace(SUB, 'other-sub')), InvalidInstanceIdError);
    assert.equal(fake.calls.length, 0);
  });

  it('lists pod VMs carrying the tags, following nextLink', async () => {
    const next = `${ARM}${VMS}?api-version=2025-04-01&%24skiptoken=page2`;
    const fake = new FakeArm()
      .once('GET', /virtualMachines$/, {
        status: 200,
        body: {
          value: [
            vmBody('podvm-a-11111111', { tags: { cluster: 'c1' } }),
            vmBody('not-a-pod-vm', { tags: { cluster: 'c1' } }),
            vmBody('podvm-b-22222222', { tags: { cluster: 'c2' } }),
          ],
          nextLink: next,
        },
      })
      .once('GET', /virtualMachines$/, {
        status: 200,
        body: { value: [vmBody('podvm-c-33333333', { tags: { cluster: 'c1', x: 'y' } })] },
      });
    const list = await (await provider(fake)).listInstances({ cluster: 'c1' });
    assert.deepEqual(
      list.map((i) => [i.name, i.id, i.tags]),
      [
        ['podvm-a-11111111', `${VMS}/podvm-a-11111111`, { cluster: 'c1' }],
        ['podvm-c-33333333', `${VMS}/podvm-c-33333333`, { cluster: 'c1', x: 'y' }],
      ],
    );
    assert.equal(fake.calls[1].url.searchParams.get('$skiptoken'), 'page2');
  });

  it('throttling: 429 is retried by the SDK, then surfaced as ThrottledError', async () => {
    const fake = new FakeArm()
      .once('GET', /virtualMachines$/, { ...armError(429, 'TooManyRequests'), headers: { 'retry-after': '0' } })
      .once('GET', /virtualMachines$/, { status: 200, body: { value: [] } });
    assert.deepEqual(await (await provider(fake)).listInstances({}), []);
    assert.equal(fake.calls.length, 2);

    const always = new FakeArm().on('DELETE', /virtualMachines\//, {
      ...armError(429, 'TooManyRequests'),
      headers: { 'retry-after': '0' },
    });
    await assert.rejects((await provider(always, CONFIG, 2)).deleteInstance(VM_ID), ThrottledError);
    assert.equal(always.calls.length, 3, 'first try + 2 retries');
  });

  it('verifyConfig lists the missing keys', async () => {
    const p = await provider(new FakeArm(), { AZURE_CLIENT_SECRET: 's3cret' });
    await assert.rejects(p.verifyConfig(), (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.deepEqual(err.missing, [
        'AZURE_SUBSCRIPTION_ID',
        'AZURE_REGION',
        'AZURE_RESOURCE_GROUP',
        'AZURE_SUBNET_ID',
        'AZURE_IMAGE_ID',
        'AZURE_TENANT_ID',
        'AZURE_CLIENT_ID',
      ]);
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
    await (await provider(new FakeArm())).verifyConfig();
  });

  it('generates an OpenSSH RSA public key', async () => {
    const key = await generateSshPublicKey(1024);
    const [type, blob] = key.split(' ');
    assert.equal(type, 'ssh-rsa');
    const raw = Buffer.from(blob, 'base64');
    assert.equal(raw.readUInt32BE(0), 7);
    assert.equal(raw.subarray(4, 11).toString(), 'ssh-rsa');
  });
});
