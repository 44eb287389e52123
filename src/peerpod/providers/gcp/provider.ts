// Compute Engine through @google-cloud/compute (REST transport), loaded on first use. Upstream
// facts kept (cloud-api-adaptor src/cloud-providers/gcp/provider.go): instance ID = instance name;
// boot disk from PODVM_IMAGE_NAME at max(image size, ROOT_VOLUME_SIZE); user data as base64
// metadata; confidential instance config + TERMINATE on maintenance unless DISABLECVM; wait for the
// zonal operation; IPs from the NICs (the NAT IP first with USE_PUBLIC_IP).
// Changed: 404 on delete is success; an existing instance of the same name (409 on insert, or found
// first) is adopted; tags are labels + metadata (labels.ts), not Resource Manager tag bindings.
import type { protos, ImagesClient, InstancesClient, ZoneOperationsClient } from '@google-cloud/compute';
import type * as ComputeSdk from '@google-cloud/compute';
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
import type { CapacityRequest, ProviderCapacity } from '../capacity.ts';
import { checkGcpConfig, readGcpSettings, sourceImage, subnetworkPath, type GcpSettings } from './config.ts';
import { GcpRegionQuota, type GcpQuotaClients } from './quota.ts';
import { labelFilter, TAGS_METADATA_KEY, toLabels } from './labels.ts';

type GceInstance = protos.google.cloud.compute.v1.IInstance;
type GceOperation = protos.google.cloud.compute.v1.IOperation;
type ListRequest = protos.google.cloud.compute.v1.IListInstancesRequest;
type ClientOptions = NonNullable<ConstructorParameters<typeof InstancesClient>[0]>;

export interface GcpProviderOptions {
  logger?: Logger;
  /** Merged into every client's options: tests pass `authClient` (whose `fetch` is the transport). */
  clientOptions?: ClientOptions;
  /** Bound on waiting for a zonal operation (default 10 min, as upstream's context). */
  operationTimeoutMs?: number;
}

// RFC 1035, as GCE requires for instance names.
const NAME_RE = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const enum Grpc {
  PERMISSION_DENIED = 7,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  ABORTED = 10,
  RESOURCE_EXHAUSTED = 8,
  UNAVAILABLE = 14,
}

interface GoogleErrorShape {
  code?: number;
  message?: string;
}

function mapError(op: string, err: unknown): Error {
  const e = err as GoogleErrorShape;
  const what = `${op}: ${e?.message ?? String(err)}`;
  // Compute reports rate limits as 403 rateLimitExceeded (code 7) as well as 429 (code 8).
  if (
    e?.code === Grpc.RESOURCE_EXHAUSTED ||
    (e?.code === Grpc.PERMISSION_DENIED && /rate ?limit/i.test(e.message ?? ''))
  ) {
    return /quota/i.test(e.message ?? '')
      ? new QuotaExceededError('gcp', what, err)
      : new ThrottledError('gcp', what, err);
  }
  if (/quota .* exceeded/i.test(e?.message ?? '')) return new QuotaExceededError('gcp', what, err);
  return new ProviderError('gcp', `gcp: ${what}`, { retryable: e?.code === Grpc.UNAVAILABLE, cause: err });
}

const code = (err: unknown): number | undefined => (err as GoogleErrorShape)?.code;

/** HTTP 409 arrives as ABORTED (gax maps status codes, not reasons), so the message decides. */
const alreadyExists = (err: unknown): boolean =>
  (code(err) === Grpc.ALREADY_EXISTS || code(err) === Grpc.ABORTED) &&
  /already exists/i.test((err as GoogleErrorShape).message ?? '');

/**
 * The three v1 clients without the package index, which also loads v1beta, v1small and a 30 MB
 * static proto module (about 6 s of a 10 s first use here); the index stays as the fallback.
 */
async function loadCompute(): Promise<
  Pick<typeof ComputeSdk, 'InstancesClient' | 'ZoneOperationsClient' | 'ImagesClient'>
> {
  try {
    const [instances, operations, images] = await Promise.all([
      import('@google-cloud/compute/build/src/v1/instances_client.js'),
      import('@google-cloud/compute/build/src/v1/zone_operations_client.js'),
      import('@google-cloud/compute/build/src/v1/images_client.js'),
    ]);
    return {
      InstancesClient: instances.InstancesClient,
      ZoneOperationsClient: operations.ZoneOperationsClient,
      ImagesClient: images.ImagesClient,
    };
  } catch {
    return import('@google-cloud/compute');
  }
}

/** The clients capacity alone needs, loaded on its first use (the same way as loadCompute). */
async function loadQuotaClients(options: ClientOptions): Promise<GcpQuotaClients> {
  let compute: Pick<typeof ComputeSdk, 'RegionsClient' | 'MachineTypesClient'>;
  try {
    const [regions, machineTypes] = await Promise.all([
      import('@google-cloud/compute/build/src/v1/regions_client.js'),
      import('@google-cloud/compute/build/src/v1/machine_types_client.js'),
    ]);
    compute = { RegionsClient: regions.RegionsClient, MachineTypesClient: machineTypes.MachineTypesClient };
  } catch {
    compute = await import('@google-cloud/compute');
  }
  return { regions: new compute.RegionsClient(options), machineTypes: new compute.MachineTypesClient(options) };
}

export async function createGcpProvider(config: ProviderConfig, opts: GcpProviderOptions = {}): Promise<GcpProvider> {
  const settings = readGcpSettings(config);
  const compute = await loadCompute();
  const options: ClientOptions = {
    fallback: true,
    ...(settings.credentials ? { credentials: JSON.parse(settings.credentials) as ClientOptions['credentials'] } : {}),
    ...(settings.projectId ? { projectId: settings.projectId } : {}),
    ...opts.clientOptions,
  };
  return new GcpProvider(
    config,
    settings,
    {
      instances: new compute.InstancesClient(options),
      operations: new compute.ZoneOperationsClient(options),
      images: new compute.ImagesClient(options),
    },
    opts,
    () => loadQuotaClients(options),
  );
}

export interface GcpClients {
  instances: InstancesClient;
  operations: ZoneOperationsClient;
  images: ImagesClient;
}

export class GcpProvider implements CloudProvider {
  readonly name = 'gcp';
  private readonly log: Logger;
  private readonly names = new KeyedLock();
  private readonly imageSizes = new Map<string, Promise<number>>();
  private quotaClients: Promise<GcpQuotaClients> | undefined;
  private regionQuota: GcpRegionQuota | undefined;

  constructor(
    private readonly config: ProviderConfig,
    private readonly settings: GcpSettings,
    readonly clients: GcpClients,
    private readonly opts: GcpProviderOptions,
    private readonly loadQuotaClients?: () => Promise<GcpQuotaClients>,
  ) {
    this.log = (opts.logger ?? defaultLogger()).child({ provider: 'gcp' });
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    const name = generateInstanceName(req.podName, req.sandboxId);
    return this.names.run(name, async () => {
      const existing = await this.get(name);
      if (existing) {
        this.log.info({ name }, 'adopting existing instance with the same name');
        return this.withIps(existing);
      }
      const resource = await this.instanceResource(name, req);
      try {
        const [op] = await this.clients.instances.insert({
          project: this.settings.projectId,
          zone: this.settings.zone,
          instanceResource: resource,
        });
        await this.waitOperation(op.latestResponse as GceOperation, `insert ${name}`);
      } catch (err) {
        // A retried insert whose first attempt went through: the instance is ours.
        if (!alreadyExists(err)) throw err instanceof ProviderError ? err : mapError(`insert ${name}`, err);
      }
      this.log.info({ name }, 'instance created');
      const created = await this.get(name);
      if (!created) {
        const partial = { id: name, name, ips: [], tags: { ...req.tags }, createdAt: new Date() };
        throw new PartialCreateError('gcp', partial, 'it is not visible after the insert operation finished');
      }
      return this.withIps(created);
    });
  }

  async deleteInstance(id: string): Promise<void> {
    if (!NAME_RE.test(id)) throw new InvalidInstanceIdError('gcp', id, 'a GCE instance name');
    try {
      const [op] = await this.clients.instances.delete({
        project: this.settings.projectId,
        zone: this.settings.zone,
        instance: id,
      });
      await this.waitOperation(op.latestResponse as GceOperation, `delete ${id}`);
      this.log.info({ id }, 'instance deleted');
    } catch (err) {
      if (code(err) === Grpc.NOT_FOUND || (err instanceof OperationError && err.opCode === 'RESOURCE_NOT_FOUND'))
        return;
      throw err instanceof ProviderError ? err : mapError(`delete ${id}`, err);
    }
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    const out: Instance[] = [];
    let request: ListRequest | null = {
      project: this.settings.projectId,
      zone: this.settings.zone,
      maxResults: 500,
      ...(Object.keys(tags).length ? { filter: labelFilter(tags) } : {}),
    };
    try {
      while (request) {
        const page: [GceInstance[], ListRequest | null, unknown] = await this.clients.instances.list(request, {
          autoPaginate: false,
        });
        const [items, next] = page;
        for (const i of items) {
          const instance = this.toInstance(i, []);
          // Labels are a lossy filter; the exact tags decide.
          if (isPodVmName(instance.name) && matchesTags(instance.tags, tags)) {
            instance.ips = this.ips(i);
            out.push(instance);
          }
        }
        request = next;
      }
    } catch (err) {
      throw mapError('list instances', err);
    }
    return out;
  }

  async verifyConfig(): Promise<void> {
    checkGcpConfig(this.config).throwIfAny();
  }

  /** The region's INSTANCES, CPUS and machine-family vCPU quotas (quota.ts). */
  async capacity(req: CapacityRequest): Promise<ProviderCapacity> {
    const s = this.settings;
    const machineType = selectInstanceType('gcp', req.instanceType, s.machineTypes, s.machineType);
    const load = this.loadQuotaClients;
    if (!load) return { available: undefined, reason: 'Unknown', message: 'no clients for the quota API' };
    this.regionQuota ??= new GcpRegionQuota({
      project: s.projectId,
      zone: s.zone,
      clients: () => (this.quotaClients ??= load()),
      mapError,
    });
    return this.regionQuota.capacity(machineType);
  }

  async close(): Promise<void> {
    const quota = await this.quotaClients?.catch(() => undefined);
    await Promise.all([
      this.clients.instances.close(),
      this.clients.operations.close(),
      this.clients.images.close(),
      ...(quota ? [quota.regions.close(), quota.machineTypes.close()] : []),
    ]);
  }

  private async get(name: string): Promise<GceInstance | undefined> {
    try {
      const [i] = await this.clients.instances.get({
        project: this.settings.projectId,
        zone: this.settings.zone,
        instance: name,
      });
      return i;
    } catch (err) {
      if (code(err) === Grpc.NOT_FOUND) return undefined;
      throw mapError(`get ${name}`, err);
    }
  }

  private async waitOperation(op: GceOperation, what: string): Promise<void> {
    const deadline = Date.now() + (this.opts.operationTimeoutMs ?? 600_000);
    let current = op;
    while (String(current.status) !== 'DONE') {
      if (Date.now() >= deadline)
        throw new ProviderError('gcp', `gcp: ${what}: operation ${op.name} still ${current.status}`, {
          retryable: true,
        });
      // operations.wait blocks server-side for up to 2 minutes, so this is not a busy loop.
      try {
        [current] = await this.clients.operations.wait({
          project: this.settings.projectId,
          zone: this.settings.zone,
          operation: op.name ?? '',
        });
      } catch (err) {
        throw mapError(`${what}: waiting for operation ${op.name}`, err);
      }
    }
    const first = current.error?.errors?.[0];
    if (!first) return;
    if (/QUOTA_EXCEEDED|RESOURCE_POOL_EXHAUSTED/.test(first.code ?? '')) {
      throw new QuotaExceededError('gcp', `${what}: ${first.code}: ${first.message ?? ''}`);
    }
    throw new OperationError(what, first.code ?? '', first.message ?? '');
  }

  private async instanceResource(name: string, req: CreateInstanceRequest): Promise<GceInstance> {
    const s = this.settings;
    const tags = mergeTags(s.tags, req.tags);
    const image = sourceImage(s, req.image);
    const machineType = selectInstanceType('gcp', req.instanceType, s.machineTypes, s.machineType);
    if (!s.disableCvm && !s.confidentialType) {
      throw new ProviderError('gcp', 'gcp: GCP_CONFIDENTIAL_TYPE must be set when DISABLECVM is false');
    }
    const items = [{ key: TAGS_METADATA_KEY, value: JSON.stringify(tags) }];
    if (req.userData) {
      items.push(
        { key: 'user-data', value: Buffer.from(req.userData).toString('base64') },
        { key: 'user-data-encoding', value: 'base64' },
      );
    }
    const subnetwork = subnetworkPath(s);
    return {
      name,
      machineType: `zones/${s.zone}/machineTypes/${machineType}`,
      labels: toLabels(tags),
      disks: [
        {
          boot: true,
          autoDelete: true,
          type: 'PERSISTENT',
          initializeParams: {
            sourceImage: image,
            diskSizeGb: String(Math.max(await this.imageSizeGiB(image), s.rootVolumeSizeGiB)),
            diskType: `zones/${s.zone}/diskTypes/${s.diskType}`,
          },
        },
      ],
      metadata: { items },
      networkInterfaces: [
        {
          network: s.network,
          stackType: 'IPV4_ONLY',
          ...(subnetwork ? { subnetwork } : {}),
          ...(s.usePublicIp ? { accessConfigs: [{ name: 'External NAT', networkTier: 'STANDARD' }] } : {}),
        },
      ],
      ...(s.disableCvm
        ? {}
        : {
            confidentialInstanceConfig: {
              confidentialInstanceType: s.confidentialType,
              enableConfidentialCompute: true,
            },
            scheduling: { onHostMaintenance: 'TERMINATE' },
          }),
    };
  }

  /** The image's own size (the boot disk may not be smaller); 0 when the path is not one we can look up. */
  private imageSizeGiB(image: string): Promise<number> {
    const m = /projects\/([^/]+)\/global\/images\/(family\/)?([^/]+)$/.exec(image);
    if (!m) return Promise.resolve(0);
    let p = this.imageSizes.get(image);
    if (!p) {
      const [, project, family, img] = m;
      p = (async () => {
        try {
          const [found] = family
            ? await this.clients.images.getFromFamily({ project, family: img })
            : await this.clients.images.get({ project, image: img });
          return Number(found.diskSizeGb ?? 0);
        } catch (err) {
          this.imageSizes.delete(image);
          throw mapError(`get image ${image}`, err);
        }
      })();
      this.imageSizes.set(image, p);
    }
    return p;
  }

  private ips(i: GceInstance): string[] {
    const nics = i.networkInterfaces ?? [];
    const privateIps = nics.map((n) => n.networkIP).filter((ip): ip is string => !!ip);
    const natIps = this.settings.usePublicIp
      ? nics
          .flatMap((n) => n.accessConfigs ?? [])
          .map((a) => a.natIP)
          .filter((ip): ip is string => !!ip)
      : [];
    return [...natIps, ...privateIps];
  }

  private withIps(i: GceInstance): Instance {
    const instance = this.toInstance(i, this.ips(i));
    if (instance.ips.length === 0) throw new PartialCreateError('gcp', instance, 'it has no IP address yet');
    if (this.settings.usePublicIp && !i.networkInterfaces?.some((n) => n.accessConfigs?.some((a) => a.natIP))) {
      throw new PartialCreateError('gcp', instance, 'it has no public IP address yet');
    }
    return instance;
  }

  private toInstance(i: GceInstance, ips: string[]): Instance {
    const raw = i.metadata?.items?.find((m) => m.key === TAGS_METADATA_KEY)?.value;
    let tags: Record<string, string> = { ...(i.labels ?? {}) };
    if (raw) {
      try {
        tags = JSON.parse(raw) as Record<string, string>;
      } catch {
        // Someone edited the metadata by hand: the labels are the best remaining account.
      }
    }
    const created = i.creationTimestamp ? Date.parse(i.creationTimestamp) : NaN;
    return {
      id: i.name ?? '',
      name: i.name ?? '',
      ips,
      tags,
      createdAt: new Date(Number.isNaN(created) ? 0 : created),
      state: i.status ?? undefined,
    };
  }
}

/** A zonal operation that finished with an error; `opCode` is its first error's code. */
export class OperationError extends ProviderError {
  constructor(
    what: string,
    readonly opCode: string,
    message: string,
  ) {
    super('gcp', `gcp: ${what}: ${opCode}: ${message}`);
    this.name = 'OperationError';
  }
}
