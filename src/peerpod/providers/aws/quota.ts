// How many more pod VMs the account's EC2 vCPU quota holds in the region. Since 2019 EC2 limits
// running On-Demand instances by vCPUs per instance-family group, served only by Service Quotas
// (EC2's `max-instances` account attribute no longer reflects it). Pod VMs are of the standard
// group (A, C, D, H, I, M, R, T, Z; quota L-1216C47A), whose usage is every running On-Demand
// instance of those families in the account and region, not only this cluster's.
import type { EC2Client, Instance as Ec2Instance } from '@aws-sdk/client-ec2';
import type * as Ec2Sdk from '@aws-sdk/client-ec2';
import type { ServiceQuotasClient, ServiceQuotasClientConfig } from '@aws-sdk/client-service-quotas';
import type * as QuotasSdk from '@aws-sdk/client-service-quotas';
import type { ProviderCapacity } from '../capacity.ts';
import { unknownCapacity } from '../capacity.ts';

/** "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances", in vCPUs. */
export const STANDARD_VCPU_QUOTA = { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' } as const;

/**
 * The family is the letters before the generation digit (`m6a.large` → m, `im4gn.large` → im);
 * Inf, DL, Trn, HPC and Mac start with a standard letter but have quotas of their own.
 */
const STANDARD_FAMILY = /^(?:[acdhmrtz]|i[ms]?)\d/;

export function isStandardFamily(instanceType: string): boolean {
  return STANDARD_FAMILY.test(instanceType);
}

/** Pending and running instances hold their vCPUs against the quota; stopped ones do not. */
const HOLDING_STATES = ['pending', 'running'];

export interface VcpuQuotaDeps {
  sdk: typeof Ec2Sdk;
  ec2: EC2Client;
  region: string;
  /** Every instance of the account in the region matching the filters, all pages. */
  describe: (filters: Array<{ Name: string; Values: string[] }>) => Promise<Ec2Instance[]>;
  quotasClientConfig: Partial<ServiceQuotasClientConfig>;
  /** SDK errors to provider errors (provider.ts). */
  mapError: (op: string, err: unknown) => Error;
}

export class Ec2VcpuQuota {
  private quotas: Promise<{ client: ServiceQuotasClient; sdk: typeof QuotasSdk }> | undefined;
  private readonly vcpusByType = new Map<string, Promise<number | undefined>>();

  constructor(private readonly deps: VcpuQuotaDeps) {}

  async capacity(instanceType: string): Promise<ProviderCapacity> {
    if (!isStandardFamily(instanceType)) {
      return unknownCapacity(
        `${instanceType} is not of a standard family (A, C, D, H, I, M, R, T, Z): its vCPU quota is not read`,
      );
    }
    const [quota, used, perVm] = await Promise.all([
      this.quota(),
      this.standardVcpusInUse(),
      this.vcpusOf(instanceType),
    ]);
    if (perVm === undefined) return unknownCapacity(`instance type ${instanceType} not offered in ${this.deps.region}`);
    const limit = Math.floor(quota.value);
    const n = Math.floor(Math.max(0, limit - used) / perVm);
    const source = quota.applied ? '' : ' (AWS default)';
    return {
      available: n,
      reason: 'Quota',
      message:
        `Running On-Demand Standard vCPUs ${used}/${limit}${source} used in ${this.deps.region}, ` +
        `${perVm} per ${instanceType}: ${n} more`,
    };
  }

  close(): void {
    void this.quotas?.then(
      (q) => q.client.destroy(),
      () => undefined,
    );
  }

  /** The applied quota; an account that never had it changed answers NoSuchResource: AWS's default applies. */
  private async quota(): Promise<{ value: number; applied: boolean }> {
    this.quotas ??= import('@aws-sdk/client-service-quotas').then((sdk) => ({
      sdk,
      client: new sdk.ServiceQuotasClient({ region: this.deps.region || undefined, ...this.deps.quotasClientConfig }),
    }));
    const { client, sdk } = await this.quotas;
    try {
      const out = await client.send(new sdk.GetServiceQuotaCommand({ ...STANDARD_VCPU_QUOTA }));
      if (out.Quota?.Value !== undefined) return { value: out.Quota.Value, applied: true };
    } catch (err) {
      if ((err as { name?: string }).name !== 'NoSuchResourceException')
        throw this.deps.mapError('GetServiceQuota', err);
    }
    try {
      const out = await client.send(new sdk.GetAWSDefaultServiceQuotaCommand({ ...STANDARD_VCPU_QUOTA }));
      if (out.Quota?.Value === undefined) throw new Error(`no value for quota ${STANDARD_VCPU_QUOTA.QuotaCode}`);
      return { value: out.Quota.Value, applied: false };
    } catch (err) {
      throw this.deps.mapError('GetAWSDefaultServiceQuota', err);
    }
  }

  /** vCPUs of the account's running On-Demand standard instances (Spot has quotas of its own). */
  private async standardVcpusInUse(): Promise<number> {
    const all = await this.deps.describe([{ Name: 'instance-state-name', Values: HOLDING_STATES }]);
    let sum = 0;
    for (const i of all) {
      const type = i.InstanceType ?? '';
      if (i.InstanceLifecycle === 'spot' || !isStandardFamily(type)) continue;
      const { CoreCount: cores, ThreadsPerCore: threads } = i.CpuOptions ?? {};
      sum += cores && threads ? cores * threads : ((await this.vcpusOf(type)) ?? 0);
    }
    return sum;
  }

  /** The type's default vCPUs (DescribeInstanceTypes), once per type. */
  private vcpusOf(instanceType: string): Promise<number | undefined> {
    let p = this.vcpusByType.get(instanceType);
    if (!p) {
      const { sdk, ec2 } = this.deps;
      p = ec2
        .send(new sdk.DescribeInstanceTypesCommand({ InstanceTypes: [instanceType as Ec2Sdk._InstanceType] }))
        .then((out) => out.InstanceTypes?.[0]?.VCpuInfo?.DefaultVCpus)
        .catch((err: unknown) => {
          this.vcpusByType.delete(instanceType);
          // An unknown type is an answer, not a failure: nothing of it can run.
          if ((err as { name?: string }).name === 'InvalidInstanceType') return undefined;
          throw this.deps.mapError(`DescribeInstanceTypes ${instanceType}`, err);
        });
      this.vcpusByType.set(instanceType, p);
    }
    return p;
  }
}
