// Azure VMs through @azure/arm-compute (and @azure/identity for credentials), both loaded on first
// use. Upstream facts kept (cloud-api-adaptor src/cloud-providers/azure/provider.go): instance ID =
// the VM's full ARM resource ID; `<name>-disk` OS disk and `<name>-net` NIC, both deleted with the
// VM; confidential VM security profile unless DISABLECVM; TAGS on the VM; IPs read from the NIC.
// Changed: a 404 on delete is success; an unparsable ID is InvalidInstanceIdError (upstream: a
// "not found" error that blocks the finalizer); create adopts an existing VM of the same name.
//
// The NIC is read with a plain ARM GET through the compute client's own pipeline (auth, retries),
// because @azure/arm-network is not a dependency.
import type {
  ComputeManagementClient,
  ComputeManagementClientOptionalParams,
  VirtualMachine,
} from '@azure/arm-compute';
import type { TokenCredential } from '@azure/identity';
import type { HttpClient } from '@azure/core-rest-pipeline';
import type * as RestPipeline from '@azure/core-rest-pipeline';
import type { CapacityRequest, ProviderCapacity } from '../capacity.ts';
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
import { generateInstanceName, isPodVmName } from '../naming.ts';
import { matchesTags, mergeTags } from '../tags.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from '../types.ts';
import { checkAzureConfig, readAzureSettings, type AzureSettings } from './config.ts';
import { generateSshPublicKey } from './ssh-key.ts';

type Pipeline = typeof RestPipeline;

export interface AzureProviderOptions {
  logger?: Logger;
  /** Skips building one from the AZURE_* settings (tests, or a caller with its own identity). */
  credential?: TokenCredential;
  /** Merged into the compute client options: tests pass `httpClient` and `retryOptions`. */
  clientOptions?: ComputeManagementClientOptionalParams;
  /** Long-running-operation poll interval (the SDK's default otherwise, or the server's Retry-After). */
  pollIntervalMs?: number;
  /** Used instead of a generated key. */
  sshPublicKey?: string;
}

const VM_ID_RE =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachines\/([^/]+)$/i;
const NETWORK_API_VERSION = '2024-05-01';

interface RestErrorShape {
  statusCode?: number;
  code?: string;
  message?: string;
}

function mapError(op: string, err: unknown): Error {
  const e = err as RestErrorShape;
  const what = `${op}: ${e?.statusCode ?? ''} ${e?.code ?? ''}: ${e?.message ?? String(err)}`.replace(/\s+/g, ' ');
  if (e?.statusCode === 429) return new ThrottledError('azure', what, err);
  if (e?.code === 'QuotaExceeded' || (e?.code === 'OperationNotAllowed' && /quota/i.test(e?.message ?? ''))) {
    return new QuotaExceededError('azure', what, err);
  }
  const status = e?.statusCode ?? 0;
  return new ProviderError('azure', `azure: ${what}`, {
    retryable: status === 0 || status >= 500 || status === 409,
    cause: err,
  });
}

const isNotFound = (err: unknown): boolean => (err as RestErrorShape)?.statusCode === 404;

export async function createAzureProvider(
  config: ProviderConfig,
  opts: AzureProviderOptions = {},
): Promise<AzureProvider> {
  const settings = readAzureSettings(config);
  const [compute, pipeline] = await Promise.all([import('@azure/arm-compute'), import('@azure/core-rest-pipeline')]);
  let credential = opts.credential;
  if (!credential) {
    const identity = await import('@azure/identity');
    // As upstream: a client secret when one is configured, workload identity otherwise.
    credential = settings.clientSecret
      ? new identity.ClientSecretCredential(settings.tenantId, settings.clientId, settings.clientSecret)
      : new identity.WorkloadIdentityCredential({
          ...(settings.tenantId ? { tenantId: settings.tenantId } : {}),
          ...(settings.clientId ? { clientId: settings.clientId } : {}),
        });
  }
  const client = new compute.ComputeManagementClient(credential, settings.subscriptionId, opts.clientOptions ?? {});
  return new AzureProvider(config, settings, client, pipeline, opts);
}

export class AzureProvider implements CloudProvider {
  readonly name = 'azure';
  private readonly log: Logger;
  private readonly names = new KeyedLock();
  private readonly httpClient: HttpClient;
  private sshKey?: Promise<string>;

  constructor(
    private readonly config: ProviderConfig,
    private readonly settings: AzureSettings,
    readonly client: ComputeManagementClient,
    private readonly pipeline: Pipeline,
    private readonly opts: AzureProviderOptions,
  ) {
    this.log = (opts.logger ?? defaultLogger()).child({ provider: 'azure' });
    this.httpClient = opts.clientOptions?.httpClient ?? pipeline.createDefaultHttpClient();
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    const name = generateInstanceName(req.podName, req.sandboxId);
    return this.names.run(name, async () => {
      const rg = this.settings.resourceGroup;
      const existing = await this.getVm(rg, name);
      if (existing) {
        this.log.info({ name, id: existing.id }, 'adopting existing VM with the same name');
        return this.withIps(existing, name);
      }
      const params = await this.vmParameters(name, req);
      let vm: VirtualMachine;
      try {
        vm = await this.client.virtualMachines.createOrUpdate(rg, name, params, this.lroOptions());
      } catch (err) {
        throw mapError(`create VM ${name}`, err);
      }
      this.log.info({ name, id: vm.id }, 'VM created');
      return this.withIps(vm, name);
    });
  }

  async deleteInstance(id: string): Promise<void> {
    const m = VM_ID_RE.exec(id);
    if (!m)
      throw new InvalidInstanceIdError(
        'azure',
        id,
        '/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Compute/virtualMachines/<name>',
      );
    const [, subscription, rg, name] = m;
    if (subscription.toLowerCase() !== this.settings.subscriptionId.toLowerCase()) {
      throw new InvalidInstanceIdError('azure', id, `a VM in subscription ${this.settings.subscriptionId}`);
    }
    try {
      await this.client.virtualMachines.delete(rg, name, this.lroOptions());
      this.log.info({ id }, 'VM deleted');
    } catch (err) {
      // ARM answers 204 for a VM that is already gone; 404 (ResourceNotFound, or the whole group gone) means the same.
      if (isNotFound(err)) return;
      throw mapError(`delete VM ${name}`, err);
    }
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    const out: Instance[] = [];
    try {
      // ARM cannot filter VMs by several tags in one list, so the filter runs here; the SDK follows nextLink.
      for await (const vm of this.client.virtualMachines.list(this.settings.resourceGroup)) {
        if (!vm.name || !isPodVmName(vm.name) || !matchesTags(vm.tags ?? {}, tags)) continue;
        out.push(this.toInstance(vm, vm.name, []));
      }
    } catch (err) {
      throw mapError('list VMs', err);
    }
    return out;
  }

  async verifyConfig(): Promise<void> {
    checkAzureConfig(this.config).throwIfAny();
  }

  /**
   * The subscription's regional quota (Compute usage.list(location)): the VM count and the regional
   * vCPUs, the latter divided by the vCPUs of the VM size (vmSizes of the region). Per-family vCPU
   * quotas would need the size's family (resource SKUs) and are not read.
   */
  async capacity(req: CapacityRequest): Promise<ProviderCapacity> {
    const s = this.settings;
    const size = selectInstanceType('azure', req.instanceType, s.sizes, s.size);
    const free = new Map<string, { current: number; limit: number }>();
    let cores: number | undefined;
    try {
      for await (const u of this.client.usage.list(s.region)) {
        if (u.name.value) free.set(u.name.value, { current: u.currentValue, limit: u.limit });
      }
      for await (const vmSize of this.client.virtualMachineSizes.list(s.region)) {
        if (vmSize.name === size) cores = vmSize.numberOfCores;
      }
    } catch (err) {
      throw mapError('usage.list', err);
    }
    const parts: Array<{ available: number; text: string }> = [];
    const vms = free.get('virtualMachines');
    if (vms) {
      const n = Math.max(0, vms.limit - vms.current);
      parts.push({ available: n, text: `virtualMachines ${vms.current}/${vms.limit} used in ${s.region}: ${n} more` });
    }
    const regional = free.get('cores');
    if (regional && cores) {
      const n = Math.max(0, Math.floor((regional.limit - regional.current) / cores));
      parts.push({
        available: n,
        text: `cores ${regional.current}/${regional.limit} used in ${s.region}, ${cores} per ${size}: ${n} more`,
      });
    }
    if (parts.length === 0) {
      return { available: undefined, reason: 'Unknown', message: `no VM or vCPU quota reported for ${s.region}` };
    }
    parts.sort((a, b) => a.available - b.available);
    return { available: parts[0].available, reason: 'Quota', message: parts.map((p) => p.text).join('; ') };
  }

  private lroOptions(): { updateIntervalInMs?: number } {
    return this.opts.pollIntervalMs === undefined ? {} : { updateIntervalInMs: this.opts.pollIntervalMs };
  }

  private async getVm(rg: string, name: string): Promise<VirtualMachine | undefined> {
    try {
      return await this.client.virtualMachines.get(rg, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw mapError(`get VM ${name}`, err);
    }
  }

  private async vmParameters(name: string, req: CreateInstanceRequest): Promise<VirtualMachine> {
    const s = this.settings;
    const size = selectInstanceType('azure', req.instanceType, s.sizes, s.size);
    const imageId = req.image || s.imageId;
    const userData = req.userData ? Buffer.from(req.userData).toString('base64') : undefined;
    if (userData && userData.length > 64 * 1024) {
      throw new ProviderError('azure', 'azure: base64-encoded user data is larger than 64 KiB');
    }
    this.sshKey ??= this.opts.sshPublicKey ? Promise.resolve(this.opts.sshPublicKey) : generateSshPublicKey();
    const nicName = `${name}-net`;
    return {
      location: s.region,
      tags: mergeTags(s.tags, req.tags),
      hardwareProfile: { vmSize: size },
      storageProfile: {
        imageReference: imageId.startsWith('/CommunityGalleries/')
          ? { communityGalleryImageId: imageId }
          : { id: imageId },
        osDisk: {
          name: `${name}-disk`,
          createOption: 'FromImage',
          caching: 'ReadWrite',
          deleteOption: 'Delete',
          ...(s.rootVolumeSizeGiB > 0 ? { diskSizeGB: s.rootVolumeSizeGiB } : {}),
          managedDisk: {
            storageAccountType: 'Premium_LRS',
            ...(s.disableCvm ? {} : { securityProfile: { securityEncryptionType: 'VMGuestStateOnly' } }),
          },
        },
      },
      osProfile: {
        adminUsername: s.sshUserName,
        computerName: name,
        linuxConfiguration: {
          disablePasswordAuthentication: true,
          ssh: { publicKeys: [{ path: `/home/${s.sshUserName}/.ssh/authorized_keys`, keyData: await this.sshKey }] },
        },
      },
      networkProfile: {
        networkApiVersion: '2020-11-01',
        networkInterfaceConfigurations: [
          {
            name: nicName,
            deleteOption: 'Delete',
            ...(s.securityGroupId ? { networkSecurityGroup: { id: s.securityGroupId } } : {}),
            ipConfigurations: [
              {
                name: 'ip-config',
                subnet: { id: s.subnetId },
                ...(s.usePublicIp ? { publicIPAddressConfiguration: { name: nicName, deleteOption: 'Delete' } } : {}),
              },
            ],
          },
        ],
      },
      ...(s.disableCvm
        ? {}
        : {
            securityProfile: {
              securityType: 'ConfidentialVM',
              uefiSettings: { secureBootEnabled: s.enableSecureBoot, vTpmEnabled: true },
            },
          }),
      diagnosticsProfile: { bootDiagnostics: { enabled: true } },
      ...(userData ? { userData } : {}),
    };
  }

  private vmId(name: string): string {
    const s = this.settings;
    return `/subscriptions/${s.subscriptionId}/resourceGroups/${s.resourceGroup}/providers/Microsoft.Compute/virtualMachines/${name}`;
  }

  private toInstance(vm: VirtualMachine, name: string, ips: string[]): Instance {
    return {
      id: vm.id ?? this.vmId(name),
      name,
      ips,
      tags: { ...(vm.tags ?? {}) },
      createdAt: vm.timeCreated ?? new Date(0),
      state: vm.provisioningState,
    };
  }

  /** Private IPs of the VM's NICs, the public one first when USE_PUBLIC_IP (as upstream). */
  private async withIps(vm: VirtualMachine, name: string): Promise<Instance> {
    const instance = this.toInstance(vm, name, []);
    try {
      const privateIps: string[] = [];
      const publicIpIds: string[] = [];
      for (const ref of vm.networkProfile?.networkInterfaces ?? []) {
        if (!ref.id) continue;
        const nic = await this.armGet<NicBody>(ref.id);
        for (const c of nic.properties?.ipConfigurations ?? []) {
          const ip = c.properties?.privateIPAddress;
          if (ip && ip !== '0.0.0.0') privateIps.push(ip);
          if (c.properties?.publicIPAddress?.id) publicIpIds.push(c.properties.publicIPAddress.id);
        }
      }
      const publicIps: string[] = [];
      if (this.settings.usePublicIp) {
        for (const id of publicIpIds) {
          const ip = (await this.armGet<{ properties?: { ipAddress?: string } }>(id)).properties?.ipAddress;
          if (ip) publicIps.push(ip);
        }
        if (publicIps.length === 0) throw new Error('no public IP address yet');
      }
      if (privateIps.length === 0) throw new Error('no private IP address on its network interfaces');
      instance.ips = [...publicIps, ...privateIps];
    } catch (err) {
      throw new PartialCreateError(
        'azure',
        instance,
        `reading its IP addresses failed: ${(err as Error).message}`,
        err,
      );
    }
    return instance;
  }

  private async armGet<T>(resourceId: string): Promise<T> {
    const url = `https://management.azure.com${resourceId}?api-version=${NETWORK_API_VERSION}`;
    const res = await this.client.pipeline.sendRequest(
      this.httpClient,
      this.pipeline.createPipelineRequest({ url, method: 'GET' }),
    );
    if (res.status >= 400) {
      throw new Error(
        `GET ${resourceId}: HTTP ${res.status}${res.bodyAsText ? `: ${res.bodyAsText.slice(0, 300)}` : ''}`,
      );
    }
    return JSON.parse(res.bodyAsText ?? '{}') as T;
  }
}

interface NicBody {
  properties?: {
    ipConfigurations?: Array<{ properties?: { privateIPAddress?: string; publicIPAddress?: { id?: string } } }>;
  };
}
