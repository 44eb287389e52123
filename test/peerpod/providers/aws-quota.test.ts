// The aws provider's capacity: the EC2 "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z)
// instances" vCPU quota (Service Quotas, ec2/L-1216C47A) less the vCPUs the account's running
// standard instances hold, over the vCPUs of the VM's instance type — through the real EC2 and
// Service Quotas SDKs, each on a fake transport.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AwsProvider } from '../../../src/peerpod/providers/aws/provider.ts';
import { isStandardFamily } from '../../../src/peerpod/providers/aws/quota.ts';
import { ProviderError } from '../../../src/peerpod/providers/errors.ts';
import { createProvider } from '../../../src/peerpod/providers/registry.ts';
import { describeXml, FakeEc2, instanceTypesXml } from './fake-ec2.ts';
import type { FakeInstance } from './fake-ec2.ts';
import { FakeServiceQuotas, quotaReply, quotasError } from './fake-service-quotas.ts';
import { silent } from './helpers.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const CONFIG = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret-not-logged',
  PODVM_AMI_ID: 'ami-0abc',
};

const VCPUS: Record<string, number> = { 'm6a.large': 2, 'r6i.large': 2, 'c6a.2xlarge': 8 };

/** EC2 answering DescribeInstances with `instances` and DescribeInstanceTypes from VCPUS. */
function ec2With(instances: FakeInstance[]): FakeEc2 {
  return new FakeEc2().on((call) => {
    if (call.action === 'DescribeInstances') return { body: describeXml(instances) };
    if (call.action === 'DescribeInstanceTypes') {
      const type = call.params['InstanceType.1'];
      return { body: instanceTypesXml(VCPUS[type] ? [{ type, vcpus: VCPUS[type] }] : []) };
    }
    return undefined;
  });
}

async function provider(
  ec2: FakeEc2,
  quotas: FakeServiceQuotas,
  config: Record<string, string> = CONFIG,
): Promise<AwsProvider> {
  return (await createProvider('aws', config, {
    logger: silent,
    aws: {
      clientConfig: { requestHandler: ec2.requestHandler, maxAttempts: 1 },
      quotasClientConfig: { requestHandler: quotas.requestHandler, maxAttempts: 1 },
    },
  })) as AwsProvider;
}

// Every standard family; the others (AWS "Running On-Demand … instances" quotas of their own).
const ACCOUNT: FakeInstance[] = [
  { id: 'i-00000000000000001', instanceType: 'm6a.large', cpu: { cores: 1, threads: 2 } },
  { id: 'i-00000000000000002', instanceType: 'c5.xlarge', cpu: { cores: 2, threads: 2 } },
  // Without CpuOptions: the type's default vCPUs count.
  { id: 'i-00000000000000003', instanceType: 'r6i.large' },
  // A GPU instance and a Spot instance hold vCPUs of other quotas.
  { id: 'i-00000000000000004', instanceType: 'p3.2xlarge', cpu: { cores: 4, threads: 2 } },
  { id: 'i-00000000000000005', instanceType: 't3.micro', cpu: { cores: 1, threads: 2 }, lifecycle: 'spot' },
];

describe('aws capacity (EC2 + Service Quotas SDKs, fake transports)', () => {
  it('divides the applied vCPU quota, less the running standard instances, by the instance type', async () => {
    const ec2 = ec2With(ACCOUNT);
    const quotas = new FakeServiceQuotas().once('GetServiceQuota', quotaReply(64));
    const p = await provider(ec2, quotas);
    try {
      const answer = await p.capacity({ vcpus: 0, memoryMiB: 0 });
      // 64 - (2 + 4 + 2) = 56 free vCPUs, 2 per m6a.large (PODVM_INSTANCE_TYPE's default).
      assert.deepEqual(answer, {
        available: 28,
        reason: 'Quota',
        message: 'Running On-Demand Standard vCPUs 8/64 used in eu-west-1, 2 per m6a.large: 28 more',
      });
      assert.deepEqual(quotas.operations(), ['GetServiceQuota']);
      assert.deepEqual(quotas.calls[0].body, { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' });
      // Signed by the SDK for the Service Quotas endpoint of the region.
      assert.match(
        quotas.calls[0].headers.authorization ?? '',
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/servicequotas\/aws4_request/,
      );
      const describeCall = ec2.calls.find((c) => c.action === 'DescribeInstances');
      assert.deepEqual(
        Object.fromEntries(Object.entries(describeCall?.params ?? {}).filter(([k]) => k.startsWith('Filter'))),
        { 'Filter.1.Name': 'instance-state-name', 'Filter.1.Value.1': 'pending', 'Filter.1.Value.2': 'running' },
      );
      // The instance types are asked once each.
      const asked = ec2.calls
        .filter((c) => c.action === 'DescribeInstanceTypes')
        .map((c) => c.params['InstanceType.1']);
      assert.deepEqual(asked.sort(), ['m6a.large', 'r6i.large']);
    } finally {
      await p.close();
    }
  });

  it("falls back to AWS's default quota when the account never had it applied, and sizes by the requested type", async () => {
    const ec2 = ec2With(ACCOUNT.slice(0, 2));
    const quotas = new FakeServiceQuotas()
      .once(
        'GetServiceQuota',
        quotasError(
          'NoSuchResourceException',
          'The request failed because the specified service quota does not exist.',
        ),
      )
      .once('GetAWSDefaultServiceQuota', quotaReply(32));
    const p = await provider(ec2, quotas, { ...CONFIG, PODVM_INSTANCE_TYPES: 'm6a.large,c6a.2xlarge' });
    try {
      const answer = await p.capacity({ vcpus: 0, memoryMiB: 0, instanceType: 'c6a.2xlarge' });
      // 32 - 6 = 26 free vCPUs, 8 per c6a.2xlarge.
      assert.deepEqual(answer, {
        available: 3,
        reason: 'Quota',
        message: 'Running On-Demand Standard vCPUs 6/32 (AWS default) used in eu-west-1, 8 per c6a.2xlarge: 3 more',
      });
      assert.deepEqual(quotas.operations(), ['GetServiceQuota', 'GetAWSDefaultServiceQuota']);
      assert.deepEqual(quotas.calls[1].body, { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' });
    } finally {
      await p.close();
    }
  });

  it('a quota used up answers 0; a refused quota read is a provider error naming the call', async () => {
    const full = new FakeServiceQuotas().once('GetServiceQuota', quotaReply(6));
    let p = await provider(ec2With(ACCOUNT), full);
    try {
      const answer = await p.capacity({ vcpus: 0, memoryMiB: 0 });
      assert.equal(answer.available, 0);
      assert.match(answer.message, /vCPUs 8\/6 used in eu-west-1, 2 per m6a\.large: 0 more$/);
    } finally {
      await p.close();
    }
    const denied = new FakeServiceQuotas().once(
      'GetServiceQuota',
      quotasError('AccessDeniedException', 'User is not authorized to perform: servicequotas:GetServiceQuota'),
    );
    p = await provider(ec2With([]), denied);
    try {
      await assert.rejects(p.capacity({ vcpus: 0, memoryMiB: 0 }), (err: Error) => {
        assert.ok(err instanceof ProviderError);
        assert.match(err.message, /GetServiceQuota: AccessDeniedException: User is not authorized/);
        return true;
      });
    } finally {
      await p.close();
    }
  });

  it('a type outside the standard families, or in a launch template, is not counted against this quota', async () => {
    const quotas = new FakeServiceQuotas();
    const ec2 = ec2With([]);
    let p = await provider(ec2, quotas, { ...CONFIG, PODVM_INSTANCE_TYPE: 'g5.xlarge' });
    try {
      const answer = await p.capacity({ vcpus: 0, memoryMiB: 0 });
      assert.equal(answer.available, undefined);
      assert.match(answer.message, /^g5\.xlarge is not of a standard family/);
    } finally {
      await p.close();
    }
    p = await provider(ec2, quotas, { ...CONFIG, USE_PODVM_LAUNCHTEMPLATE: 'true' });
    try {
      const answer = await p.capacity({ vcpus: 0, memoryMiB: 0 });
      assert.equal(answer.available, undefined);
      assert.match(answer.message, /launch template kata/);
    } finally {
      await p.close();
    }
    assert.deepEqual(quotas.calls, []);
    assert.deepEqual(ec2.calls, []);
  });

  it('knows the standard families by the letters before the generation', () => {
    for (const t of [
      'a1.large',
      'c7gn.xlarge',
      'd3en.xlarge',
      'h1.2xlarge',
      'i4i.large',
      'im4gn.large',
      'is4gen.large',
    ]) {
      assert.ok(isStandardFamily(t), t);
    }
    for (const t of ['m6a.large', 'r7iz.large', 't3.micro', 'z1d.large']) assert.ok(isStandardFamily(t), t);
    for (const t of ['inf2.xlarge', 'dl1.24xlarge', 'trn1.2xlarge', 'hpc6a.48xlarge', 'mac1.metal', 'g5.xlarge']) {
      assert.ok(!isStandardFamily(t), t);
    }
    for (const t of ['p4d.24xlarge', 'x2idn.16xlarge', 'u-6tb1.metal', 'f1.2xlarge', 'vt1.3xlarge']) {
      assert.ok(!isStandardFamily(t), t);
    }
  });
});
