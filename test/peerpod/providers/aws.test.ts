// The aws provider through the real EC2 SDK with a fake transport: exact query parameters,
// pagination, NotFound on terminate, throttling retried by the SDK and then surfaced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AwsProvider } from '../../../src/peerpod/providers/aws/provider.ts';
import {
  InvalidInstanceIdError,
  InvalidRequestError,
  ProviderConfigError,
  QuotaExceededError,
  ThrottledError,
} from '../../../src/peerpod/providers/errors.ts';
import { createProvider } from '../../../src/peerpod/providers/registry.ts';
import { describeXml, errorXml, FakeEc2, imagesXml, runXml, terminateXml } from './fake-ec2.ts';
import { request, silent } from './helpers.ts';

// The SDK warns on every Node < 22 about its future support window; not something these tests check.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const CONFIG = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret-not-logged',
  PODVM_AMI_ID: 'ami-0abc',
  AWS_SUBNET_ID: 'subnet-1',
  AWS_SG_IDS: 'sg-1, sg-2',
  TAGS: 'team=pods,env=test',
};

async function provider(fake: FakeEc2, config: Record<string, string> = CONFIG, maxAttempts = 3): Promise<AwsProvider> {
  return (await createProvider('aws', config, {
    logger: silent,
    aws: { clientConfig: { requestHandler: fake.requestHandler, maxAttempts } },
  })) as AwsProvider;
}

/** The `Prefix.N.Key=Value` pairs of a query as a flat object, for readable assertions. */
function pick(params: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([k]) => k.startsWith(prefix)));
}

describe('aws provider (EC2 SDK, fake transport)', () => {
  it('creates with upstream parameters: Name tag + TAGS + request tags, SEV-SNP, root volume, user data', async () => {
    const fake = new FakeEc2()
      .once('DescribeInstances', describeXml([]))
      .once('DescribeImages', imagesXml('/dev/xvda', 8))
      .once('RunInstances', runXml({ id: 'i-0123456789abcdef0', name: 'podvm-web-0-12345678', ip: '10.0.1.5' }));
    const p = await provider(fake);
    const vm = await p.createInstance(
      request('web-0', '1234567890', {
        tags: { 'caa-cluster-uid': 'uid-1', env: 'override' },
        userData: '#cloud-config\n',
      }),
    );
    assert.deepEqual(fake.actions(), ['DescribeInstances', 'DescribeImages', 'RunInstances']);
    assert.deepEqual(pick(fake.calls[0].params, 'Filter'), {
      'Filter.1.Name': 'tag:Name',
      'Filter.1.Value.1': 'podvm-web-0-12345678',
      'Filter.2.Name': 'instance-state-name',
      'Filter.2.Value.1': 'pending',
      'Filter.2.Value.2': 'running',
      'Filter.2.Value.3': 'stopping',
      'Filter.2.Value.4': 'stopped',
    });
    const run = fake.calls[2].params;
    assert.equal(run.ImageId, 'ami-0abc');
    assert.equal(run.InstanceType, 'm6a.large');
    assert.equal(run.MinCount, '1');
    assert.equal(run.MaxCount, '1');
    assert.equal(run.SubnetId, 'subnet-1');
    assert.deepEqual(pick(run, 'SecurityGroupId'), { 'SecurityGroupId.1': 'sg-1', 'SecurityGroupId.2': 'sg-2' });
    assert.equal(run['CpuOptions.AmdSevSnp'], 'enabled');
    assert.equal(run['BlockDeviceMapping.1.DeviceName'], '/dev/xvda');
    assert.equal(run['BlockDeviceMapping.1.Ebs.VolumeSize'], '30');
    assert.equal(Buffer.from(run.UserData, 'base64').toString(), '#cloud-config\n');
    assert.deepEqual(pick(run, 'TagSpecification'), {
      'TagSpecification.1.ResourceType': 'instance',
      'TagSpecification.1.Tag.1.Key': 'Name',
      'TagSpecification.1.Tag.1.Value': 'podvm-web-0-12345678',
      'TagSpecification.1.Tag.2.Key': 'team',
      'TagSpecification.1.Tag.2.Value': 'pods',
      'TagSpecification.1.Tag.3.Key': 'env',
      'TagSpecification.1.Tag.3.Value': 'override',
      'TagSpecification.1.Tag.4.Key': 'caa-cluster-uid',
      'TagSpecification.1.Tag.4.Value': 'uid-1',
    });
    assert.equal(vm.id, 'i-0123456789abcdef0');
    assert.equal(vm.name, 'podvm-web-0-12345678');
    assert.deepEqual(vm.ips, ['10.0.1.5']);
    assert.equal(vm.state, 'pending');
    for (const c of fake.calls) assert.ok(!JSON.stringify(c).includes('secret-not-logged'));
  });

  it('adopts a live instance with the same Name instead of launching another', async () => {
    const fake = new FakeEc2().once(
      'DescribeInstances',
      describeXml([{ id: 'i-0aaaaaaaaaaaaaaaa', name: 'podvm-web-0-12345678', ip: '10.0.0.9', tags: { a: 'b' } }]),
    );
    const vm = await (await provider(fake)).createInstance(request('web-0', '12345678'));
    assert.deepEqual(fake.actions(), ['DescribeInstances']);
    assert.equal(vm.id, 'i-0aaaaaaaaaaaaaaaa');
    assert.deepEqual(vm.tags, { a: 'b' });
  });

  it('launch template mode sends the template instead of image and network settings', async () => {
    const fake = new FakeEc2()
      .once('DescribeInstances', describeXml([]))
      .once('RunInstances', runXml({ id: 'i-0123456789abcdef0', name: 'podvm-a-b', ip: '10.0.0.2' }));
    const p = await provider(fake, { ...CONFIG, PODVM_AMI_ID: '', USE_PODVM_LAUNCHTEMPLATE: 'true' });
    await p.verifyConfig();
    await p.createInstance(request('a', 'b'));
    const run = fake.calls[1].params;
    assert.equal(run['LaunchTemplate.LaunchTemplateName'], 'kata');
    assert.equal(run.ImageId, undefined);
    assert.equal(run.InstanceType, undefined);
  });

  it('refuses an instance type outside PODVM_INSTANCE_TYPES before calling EC2', async () => {
    const fake = new FakeEc2().once('DescribeInstances', describeXml([]));
    const p = await provider(fake, { ...CONFIG, PODVM_INSTANCE_TYPES: 'm6a.large,m6a.xlarge' });
    await assert.rejects(p.createInstance(request('a', 'b', { instanceType: 'p5.48xlarge' })), InvalidRequestError);
    assert.ok(!fake.actions().includes('RunInstances'));
  });

  it('maps InstanceLimitExceeded to QuotaExceededError', async () => {
    const fake = new FakeEc2()
      .once('DescribeInstances', describeXml([]))
      .once('DescribeImages', imagesXml('/dev/sda1', 50))
      .once('RunInstances', errorXml('InstanceLimitExceeded', 'You have requested more instances than allowed'));
    await assert.rejects((await provider(fake)).createInstance(request('a', 'b')), QuotaExceededError);
    assert.equal(fake.calls[2].params['BlockDeviceMapping.1.Ebs.VolumeSize'], '50', 'never smaller than the AMI');
  });

  it('terminates by ID; InvalidInstanceID.NotFound is success; malformed IDs are rejected', async () => {
    const fake = new FakeEc2()
      .once('TerminateInstances', terminateXml('i-0123456789abcdef0'))
      .once(
        'TerminateInstances',
        errorXml('InvalidInstanceID.NotFound', "The instance ID 'i-0123456789abcdef0' does not exist"),
      )
      .once('TerminateInstances', errorXml('InvalidInstanceID.Malformed', 'Invalid id'));
    const p = await provider(fake);
    await p.deleteInstance('i-0123456789abcdef0');
    await p.deleteInstance('i-0123456789abcdef0');
    assert.deepEqual(
      fake.calls.map((c) => [c.action, c.params['InstanceId.1']]),
      [
        ['TerminateInstances', 'i-0123456789abcdef0'],
        ['TerminateInstances', 'i-0123456789abcdef0'],
      ],
    );
    await assert.rejects(p.deleteInstance('i-12345678'), InvalidInstanceIdError, 'server-side Malformed');
    await assert.rejects(p.deleteInstance('vm-1'), InvalidInstanceIdError);
    assert.equal(fake.calls.length, 3, 'the local check makes no call');
  });

  it('lists by tags server-side and follows NextToken', async () => {
    const fake = new FakeEc2()
      .once(
        'DescribeInstances',
        describeXml(
          [{ id: 'i-00000000000000001', name: 'podvm-a-1', ip: '10.0.0.1', tags: { cluster: 'c1', x: 'y' } }],
          'page-2',
        ),
      )
      .once(
        'DescribeInstances',
        describeXml([{ id: 'i-00000000000000002', name: 'podvm-b-2', ip: '10.0.0.2', tags: { cluster: 'c1' } }]),
      );
    const list = await (await provider(fake)).listInstances({ cluster: 'c1' });
    assert.deepEqual(
      list.map((i) => [i.id, i.name, i.ips[0], i.tags]),
      [
        ['i-00000000000000001', 'podvm-a-1', '10.0.0.1', { cluster: 'c1', x: 'y' }],
        ['i-00000000000000002', 'podvm-b-2', '10.0.0.2', { cluster: 'c1' }],
      ],
    );
    const [first, second] = fake.calls;
    assert.equal(first.params.NextToken, undefined);
    assert.equal(second.params.NextToken, 'page-2');
    assert.equal(first.params.MaxResults, '1000');
    assert.deepEqual(pick(first.params, 'Filter.1'), { 'Filter.1.Name': 'tag:Name', 'Filter.1.Value.1': 'podvm-*' });
    assert.deepEqual(pick(first.params, 'Filter.3'), { 'Filter.3.Name': 'tag:cluster', 'Filter.3.Value.1': 'c1' });
  });

  it('throttling: the SDK retries RequestLimitExceeded, then the provider surfaces ThrottledError', async () => {
    const fake = new FakeEc2()
      .once('DescribeInstances', errorXml('RequestLimitExceeded', 'Request limit exceeded.'))
      .once('DescribeInstances', describeXml([]));
    assert.deepEqual(await (await provider(fake)).listInstances({}), []);
    assert.deepEqual(fake.actions(), ['DescribeInstances', 'DescribeInstances'], 'one throttled call, one retry');

    const always = new FakeEc2().on((c) =>
      c.action === 'TerminateInstances' ? errorXml('RequestLimitExceeded') : undefined,
    );
    await assert.rejects((await provider(always, CONFIG, 2)).deleteInstance('i-0123456789abcdef0'), (err: Error) => {
      assert.ok(err instanceof ThrottledError);
      assert.equal(err.retryable, true);
      return true;
    });
    assert.equal(always.calls.length, 2, 'maxAttempts honoured');
  });

  it('verifyConfig lists the missing keys', async () => {
    const p = await provider(new FakeEc2(), {});
    await assert.rejects(p.verifyConfig(), (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.deepEqual(err.missing, ['AWS_REGION', 'PODVM_AMI_ID']);
      assert.equal(err.message, 'aws provider config: missing AWS_REGION, PODVM_AMI_ID');
      return true;
    });
    await (await provider(new FakeEc2())).verifyConfig();
  });
});
