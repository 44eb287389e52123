// EC2 through @aws-sdk/client-ec2, loaded on first use. Upstream facts kept
// (cloud-api-adaptor src/cloud-providers/aws/provider.go): instance ID `i-…`; tags `Name=<vm name>`
// plus TAGS on the instance at launch; launch template mode; SEV-SNP CPU option unless DISABLECVM;
// root volume size on the AMI's root device; the private IP of each NIC, the public IP first when
// USE_PUBLIC_IP. Changed: InvalidInstanceID.NotFound on terminate is success; create adopts a live
// instance tagged with the same Name; list filters on tags server-side.
import type {
  EC2Client,
  EC2ClientConfig,
  Filter,
  Instance as Ec2Instance,
  RunInstancesCommandInput,
  Tag,
} from '@aws-sdk/client-ec2';
import type * as Ec2Sdk from '@aws-sdk/client-ec2';
import type { ServiceQuotasClientConfig } from '@aws-sdk/client-service-quotas';
import type { CapacityRequest, ProviderCapacity } from '../capacity.ts';
import { unknownCapacity } from '../capacity.ts';
import { selectInstanceType, type ProviderConfig } from '../config.ts';
import {
  InvalidInstanceIdError,
  PartialCreateError,
  ProviderError,
  QuotaExceededError,
  ThrottledError,
} from '../errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { defaultLogger, type Logger } from '../log.ts';
import { generateInstanceName, POD_VM_NAME_PREFIX } from '../naming.ts';
import { mergeTags } from '../tags.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from '../types.ts';
import { delay } from '../wait.ts';
import { checkAwsConfig, readAwsSettings, type AwsSettings } from './config.ts';
import { Ec2VcpuQuota } from './quota.ts';

type Sdk = typeof Ec2Sdk;

export interface AwsProviderOptions {
  logger?: Logger;
  /** Merged over the client config built from the settings: tests pass `requestHandler`, `maxAttempts`. */
  clientConfig?: Partial<EC2ClientConfig>;
  /** The same for the Service Quotas client (the vCPU quota, capacity only). */
  quotasClientConfig?: Partial<ServiceQuotasClientConfig>;
  /** How long create polls for the public IP when USE_PUBLIC_IP (upstream: 120 s). */
  publicIpWaitMs?: number;
  pollIntervalMs?: number;
}

const INSTANCE_ID_RE = /^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;
// Terminated instances stay visible for about an hour; they are gone for our purposes.
const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped'];
const THROTTLE_CODES = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
]);
const QUOTA_CODES = new Set(['InstanceLimitExceeded', 'VcpuLimitExceeded', 'MaxSpotInstanceCountExceeded']);

interface AwsErrorShape {
  name?: string;
  message?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
}

function errorCode(err: unknown): string {
  return (err as AwsErrorShape)?.name ?? '';
}

/** SDK errors (after the SDK's own retries) to provider errors the controllers can act on. */
function mapError(op: string, err: unknown): Error {
  const e = err as AwsErrorShape;
  const code = errorCode(err);
  const what = `${op}: ${code}: ${e?.message ?? String(err)}`;
  if (THROTTLE_CODES.has(code)) return new ThrottledError('aws', what, err);
  if (QUOTA_CODES.has(code)) return new QuotaExceededError('aws', what, err);
  const status = e?.$metadata?.httpStatusCode ?? 0;
  return new ProviderError('aws', `aws: ${what}`, { retryable: Boolean(e?.$retryable) || status >= 500, cause: err });
}

export async function createAwsProvider(config: ProviderConfig, opts: AwsProviderOptions = {}): Promise<AwsProvider> {
  const sdk = await import('@aws-sdk/client-ec2');
  return new AwsProvider(sdk, config, opts);
}

export class AwsProvider implements CloudProvider {
  readonly name = 'aws';
  readonly client: EC2Client;
  private readonly settings: AwsSettings;
  private readonly log: Logger;
  private readonly names = new KeyedLock();
  private readonly rootDevices = new Map<string, Promise<{ name: string; sizeGiB: number } | undefined>>();
  private vcpuQuota: Ec2VcpuQuota | undefined;

  constructor(
    private readonly sdk: Sdk,
    private readonly config: ProviderConfig,
    private readonly opts: AwsProviderOptions = {},
  ) {
    this.settings = readAwsSettings(config);
    this.log = (opts.logger ?? defaultLogger()).child({ provider: 'aws' });
    this.client = new sdk.EC2Client({
      region: this.settings.region || undefined,
      ...(this.settings.credentials ? { credentials: this.settings.credentials } : {}),
      ...opts.clientConfig,
    });
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    const name = generateInstanceName(req.podName, req.sandboxId);
    return this.names.run(name, async () => {
      const existing = await this.describe([
        { Name: 'tag:Name', Values: [name] },
        { Name: 'instance-state-name', Values: LIVE_STATES },
      ]);
      if (existing.length > 0) {
        this.log.info({ name, id: existing[0].InstanceId }, 'adopting existing instance with the same Name');
        return this.toInstance(existing[0]);
      }
      const input = await this.runInput(name, req);
      let out;
      try {
        out = await this.client.send(new this.sdk.RunInstancesCommand(input));
      } catch (err) {
        throw mapError(`RunInstances ${name}`, err);
      }
      const created = out.Instances?.[0];
      if (!created?.InstanceId) throw new ProviderError('aws', `aws: RunInstances ${name} returned no instance`);
      this.log.info({ name, id: created.InstanceId }, 'instance created');
      const instance = this.toInstance(created);
      if (!created.PrivateIpAddress && !created.NetworkInterfaces?.some((n) => n.PrivateIpAddress)) {
        throw new PartialCreateError('aws', instance, 'its private IP address is not assigned yet');
      }
      if (this.settings.usePublicIp && !created.PublicIpAddress)
        instance.ips.unshift(await this.waitPublicIp(instance));
      return instance;
    });
  }

  async deleteInstance(id: string): Promise<void> {
    if (!INSTANCE_ID_RE.test(id)) throw new InvalidInstanceIdError('aws', id, 'an EC2 instance ID i-…');
    try {
      await this.client.send(new this.sdk.TerminateInstancesCommand({ InstanceIds: [id] }));
      this.log.info({ id }, 'instance terminated');
    } catch (err) {
      const code = errorCode(err);
      if (code === 'InvalidInstanceID.NotFound') return;
      if (code === 'InvalidInstanceID.Malformed') throw new InvalidInstanceIdError('aws', id, 'an EC2 instance ID i-…');
      throw mapError(`TerminateInstances ${id}`, err);
    }
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    const filters: Filter[] = [
      { Name: 'tag:Name', Values: [`${POD_VM_NAME_PREFIX}-*`] },
      { Name: 'instance-state-name', Values: LIVE_STATES },
      ...Object.entries(tags).map(([k, v]) => ({ Name: `tag:${k}`, Values: [v] })),
    ];
    return (await this.describe(filters)).map((i) => this.toInstance(i));
  }

  async verifyConfig(): Promise<void> {
    checkAwsConfig(this.config).throwIfAny();
  }

  /** The region's Running On-Demand Standard vCPU quota over the vCPUs of the VM's instance type (quota.ts). */
  async capacity(req: CapacityRequest): Promise<ProviderCapacity> {
    const s = this.settings;
    if (s.useLaunchTemplate && !req.instanceType) {
      return unknownCapacity(`the instance type is in launch template ${s.launchTemplateName}: its vCPUs are not read`);
    }
    const type = selectInstanceType('aws', req.instanceType, s.instanceTypes, s.instanceType);
    const credentials = s.credentials ? { credentials: s.credentials } : {};
    this.vcpuQuota ??= new Ec2VcpuQuota({
      sdk: this.sdk,
      ec2: this.client,
      region: s.region,
      describe: (filters) => this.describe(filters),
      quotasClientConfig: { ...credentials, ...this.opts.quotasClientConfig },
      mapError,
    });
    return this.vcpuQuota.capacity(type);
  }

  async close(): Promise<void> {
    this.vcpuQuota?.close();
    this.client.destroy();
  }

  private async describe(filters: Filter[], instanceIds?: string[]): Promise<Ec2Instance[]> {
    const out: Ec2Instance[] = [];
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new this.sdk.DescribeInstancesCommand({
            Filters: filters,
            ...(instanceIds ? { InstanceIds: instanceIds } : { MaxResults: 1000 }),
            NextToken: token,
          }),
        );
      } catch (err) {
        throw mapError('DescribeInstances', err);
      }
      for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
      token = page.NextToken;
    } while (token);
    return out;
  }

  private async runInput(name: string, req: CreateInstanceRequest): Promise<RunInstancesCommandInput> {
    const s = this.settings;
    const tags: Tag[] = [
      { Key: 'Name', Value: name },
      ...Object.entries(mergeTags(s.tags, req.tags))
        .filter(([k]) => k !== 'Name')
        .map(([Key, Value]) => ({ Key, Value })),
    ];
    const input: RunInstancesCommandInput = {
      MinCount: 1,
      MaxCount: 1,
      TagSpecifications: [{ ResourceType: 'instance', Tags: tags }],
      ...(req.userData ? { UserData: Buffer.from(req.userData).toString('base64') } : {}),
    };
    if (s.useLaunchTemplate) {
      input.LaunchTemplate = { LaunchTemplateName: s.launchTemplateName };
      return input;
    }
    const imageId = req.image || s.imageId;
    input.ImageId = imageId;
    input.InstanceType = selectInstanceType('aws', req.instanceType, s.instanceTypes, s.instanceType) as
      RunInstancesCommandInput['InstanceType'] | undefined;
    if (s.keyName) input.KeyName = s.keyName;
    if (s.usePublicIp) {
      input.NetworkInterfaces = [
        {
          DeviceIndex: 0,
          AssociatePublicIpAddress: true,
          DeleteOnTermination: true,
          ...(s.subnetId ? { SubnetId: s.subnetId } : {}),
          ...(s.securityGroupIds.length ? { Groups: s.securityGroupIds } : {}),
        },
      ];
    } else {
      if (s.subnetId) input.SubnetId = s.subnetId;
      if (s.securityGroupIds.length) input.SecurityGroupIds = s.securityGroupIds;
    }
    if (!s.disableCvm) input.CpuOptions = { AmdSevSnp: 'enabled' };
    if (s.rootVolumeSizeGiB > 0) {
      const root = await this.rootDevice(imageId);
      if (root) {
        input.BlockDeviceMappings = [
          {
            DeviceName: root.name,
            Ebs: { VolumeSize: Math.min(Math.max(s.rootVolumeSizeGiB, root.sizeGiB), 2 ** 31 - 1) },
          },
        ];
      }
    }
    return input;
  }

  /** The AMI's root device name and size, once per image (upstream reads it at provider start). */
  private rootDevice(imageId: string): Promise<{ name: string; sizeGiB: number } | undefined> {
    let p = this.rootDevices.get(imageId);
    if (!p) {
      p = (async () => {
        try {
          const out = await this.client.send(new this.sdk.DescribeImagesCommand({ ImageIds: [imageId] }));
          const img = out.Images?.[0];
          if (!img?.RootDeviceName) return undefined;
          const mapping = img.BlockDeviceMappings?.find((m) => m.DeviceName === img.RootDeviceName);
          return { name: img.RootDeviceName, sizeGiB: mapping?.Ebs?.VolumeSize ?? 0 };
        } catch (err) {
          this.rootDevices.delete(imageId);
          throw mapError(`DescribeImages ${imageId}`, err);
        }
      })();
      this.rootDevices.set(imageId, p);
    }
    return p;
  }

  private async waitPublicIp(instance: Instance): Promise<string> {
    const deadline = Date.now() + (this.opts.publicIpWaitMs ?? 120_000);
    for (;;) {
      const [i] = await this.describe([], [instance.id]);
      if (i?.PublicIpAddress) return i.PublicIpAddress;
      if (Date.now() >= deadline)
        throw new PartialCreateError('aws', instance, 'no public IP address was assigned in time');
      await delay(this.opts.pollIntervalMs ?? 3000);
    }
  }

  private toInstance(i: Ec2Instance): Instance {
    const tags: Record<string, string> = {};
    let name = '';
    for (const t of i.Tags ?? []) {
      if (t.Key === undefined) continue;
      if (t.Key === 'Name') name = t.Value ?? '';
      else tags[t.Key] = t.Value ?? '';
    }
    const nicIps = (i.NetworkInterfaces ?? []).map((n) => n.PrivateIpAddress).filter((ip): ip is string => !!ip);
    const ips = nicIps.length ? nicIps : i.PrivateIpAddress ? [i.PrivateIpAddress] : [];
    if (this.settings.usePublicIp && i.PublicIpAddress) ips.unshift(i.PublicIpAddress);
    return {
      id: i.InstanceId ?? '',
      name,
      ips: ips.filter((ip) => ip !== '0.0.0.0'),
      tags,
      createdAt: i.LaunchTime ?? new Date(0),
      state: i.State?.Name,
    };
  }
}
