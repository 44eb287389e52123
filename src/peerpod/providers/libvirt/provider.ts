// Pod VMs as libvirt domains. Upstream facts kept: names from GenerateInstanceName, instance ID =
// domain UUID (#2963), root volume `<name>-root.qcow2` backed by LIBVIRT_VOL_NAME in LIBVIRT_POOL,
// delete = destroy, delete the VM's volumes, undefine with NVRAM (falling back to plain undefine).
// Changed: a missing domain on delete is success; an existing domain with the same name is adopted
// on create (upstream returned an empty ID, #3247); tags are kept in the domain metadata.
//
// Config (upstream env names): LIBVIRT_URI (default qemu:///system here; upstream's default is a
// qemu+ssh URI to the host), LIBVIRT_POOL (default), LIBVIRT_NET (default; "none" = no NIC),
// LIBVIRT_VOL_NAME (podvm-base.qcow2; "none" = no disk), LIBVIRT_CPU (2), LIBVIRT_MEMORY (8192 MiB),
// LIBVIRT_ROOT_DISK_SIZE (10 GiB), LIBVIRT_EFI_FIRMWARE, LIBVIRT_CPUSET; ours: LIBVIRT_CPU_MODE.
// Not supported: LIBVIRT_LAUNCH_SECURITY and DISABLECVM=false (confidential VMs).
import { randomUUID } from 'node:crypto';
import {
  ConfigCheck,
  get,
  isBool,
  isNonNegativeInt,
  parseBool,
  parseNonNegativeInt,
  type ProviderConfig,
} from '../config.ts';
import { localHostCapacity, sizeOrDefault, unknownCapacity } from '../capacity.ts';
import type { CapacityRequest, ProviderCapacity } from '../capacity.ts';
import { InvalidInstanceIdError, PartialCreateError, ProviderError } from '../errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { defaultLogger, type Logger } from '../log.ts';
import { generateInstanceName, isPodVmName } from '../naming.ts';
import { matchesTags } from '../tags.ts';
import type { CloudProvider, CreateInstanceRequest, Instance } from '../types.ts';
import { delay, mapLimit } from '../wait.ts';
import {
  buildDomainXml,
  METADATA_NS,
  parseDiskSources,
  parseInstanceMetadata,
  type InstanceMetadata,
} from './domain-xml.ts';
import { Virsh, VirshError } from './virsh.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NONE = 'none';
/** Upstream's LIBVIRT_CPU and LIBVIRT_MEMORY defaults. */
const DEFAULT_SIZE = { vcpus: 2, memoryMiB: 8192 };

export interface LibvirtProviderOptions {
  logger?: Logger;
  /** How long create waits for a DHCP lease when the VM has a NIC (upstream: 20 x 3 s). */
  ipWaitMs?: number;
  virshBinary?: string;
}

export class LibvirtProvider implements CloudProvider {
  readonly name = 'libvirt';
  readonly virsh: Virsh;
  private readonly pool: string;
  private readonly network: string;
  private readonly baseVolume: string;
  private readonly log: Logger;
  private readonly ipWaitMs: number;
  private readonly names = new KeyedLock();
  private readonly ids = new KeyedLock();
  private domainType?: Promise<'kvm' | 'qemu'>;

  constructor(
    private readonly config: ProviderConfig = {},
    opts: LibvirtProviderOptions = {},
  ) {
    this.virsh = new Virsh({ uri: get(config, 'LIBVIRT_URI', 'qemu:///system'), binary: opts.virshBinary });
    this.pool = get(config, 'LIBVIRT_POOL', 'default');
    this.network = get(config, 'LIBVIRT_NET', 'default');
    this.baseVolume = get(config, 'LIBVIRT_VOL_NAME', 'podvm-base.qcow2');
    this.log = (opts.logger ?? defaultLogger()).child({ provider: 'libvirt' });
    this.ipWaitMs = opts.ipWaitMs ?? 60_000;
  }

  async createInstance(req: CreateInstanceRequest): Promise<Instance> {
    const name = generateInstanceName(req.podName, req.sandboxId);
    return this.names.run(name, async () => {
      const existing = await this.uuidByName(name);
      if (existing) return this.adopt(existing, name);

      const uuid = randomUUID();
      const meta: InstanceMetadata = {
        createdAt: new Date().toISOString(),
        podName: req.podName,
        podNamespace: req.podNamespace,
        sandboxId: req.sandboxId,
        tags: { ...req.tags },
      };
      const rootVolume = this.baseVolume === NONE ? undefined : await this.createRootVolume(name);
      const xml = buildDomainXml({
        name,
        uuid,
        domainType: await this.detectDomainType(),
        ...sizeOrDefault(req, this.config, { vcpus: 'LIBVIRT_CPU', memoryMiB: 'LIBVIRT_MEMORY' }, DEFAULT_SIZE),
        cpuset: get(this.config, 'LIBVIRT_CPUSET') || undefined,
        cpuMode: get(this.config, 'LIBVIRT_CPU_MODE') || undefined,
        firmware: get(this.config, 'LIBVIRT_EFI_FIRMWARE') || undefined,
        rootVolume,
        network: this.network === NONE ? undefined : this.network,
        meta,
      });
      try {
        await this.virsh.define(xml);
        await this.virsh.run(['start', uuid]);
      } catch (err) {
        await this.deleteDomain(uuid).catch((e: unknown) =>
          this.log.warn({ err: e, name }, 'cleanup after failed create'),
        );
        if (rootVolume) await this.deleteVolume(rootVolume.pool, rootVolume.volume).catch(() => undefined);
        throw new ProviderError('libvirt', `libvirt: creating domain ${name}: ${(err as Error).message}`, {
          retryable: true,
          cause: err,
        });
      }
      const instance = toInstance(uuid, name, meta, [], 'running');
      if (this.network !== NONE) {
        instance.ips = await this.waitForIps(uuid);
        if (instance.ips.length === 0) {
          throw new PartialCreateError('libvirt', instance, `got no IP address within ${this.ipWaitMs} ms`);
        }
      }
      this.log.info({ name, id: uuid }, 'domain started');
      return instance;
    });
  }

  async deleteInstance(id: string): Promise<void> {
    if (!UUID_RE.test(id)) throw new InvalidInstanceIdError('libvirt', id, 'a domain UUID');
    await this.ids.run(id.toLowerCase(), () => this.deleteDomain(id));
  }

  async listInstances(tags: Record<string, string>): Promise<Instance[]> {
    const rows = (await this.virsh.run(['list', '--all', '--uuid', '--name']))
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((p): p is [string, string] => p.length === 2 && UUID_RE.test(p[0]) && isPodVmName(p[1]));
    const states = await this.states();
    const found = await mapLimit(rows, 4, async ([uuid, name]) => {
      const meta = await this.metadata(uuid);
      // No metadata of ours: a domain someone else made; never report it as ours.
      if (!meta || !matchesTags(meta.tags, tags)) return undefined;
      return toInstance(uuid, name, meta, [], states.get(name));
    });
    return found
      .filter((i): i is Instance => i !== undefined)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** This host's free memory and CPUs when libvirtd is local; a remote one's are not read here. */
  async capacity(req: CapacityRequest): Promise<ProviderCapacity> {
    const uri = get(this.config, 'LIBVIRT_URI', 'qemu:///system');
    if (!/^qemu:\/\/\/(system|session)$/.test(uri)) {
      return unknownCapacity(`libvirt at ${uri} is not on this host; its capacity is not read`);
    }
    const size = sizeOrDefault(req, this.config, { vcpus: 'LIBVIRT_CPU', memoryMiB: 'LIBVIRT_MEMORY' }, DEFAULT_SIZE);
    return localHostCapacity(size, this.config);
  }

  async verifyConfig(): Promise<void> {
    const check = new ConfigCheck('libvirt', this.config)
      .check('LIBVIRT_CPU', isNonNegativeInt, 'integer')
      .check('LIBVIRT_MEMORY', isNonNegativeInt, 'MiB')
      .check('LIBVIRT_ROOT_DISK_SIZE', isNonNegativeInt, 'GiB')
      .check('DISABLECVM', isBool, 'boolean')
      .check(
        'LIBVIRT_CPU_MODE',
        (v) => ['host-model', 'host-passthrough', 'maximum'].includes(v),
        'host-model, host-passthrough or maximum',
      );
    if (get(this.config, 'LIBVIRT_LAUNCH_SECURITY'))
      check.problem('LIBVIRT_LAUNCH_SECURITY (confidential VMs are not supported)');
    if (parseBool(get(this.config, 'DISABLECVM', 'true')) === false)
      check.problem('DISABLECVM (confidential VMs are not supported)');
    try {
      await this.virsh.run(['version']);
      if (this.baseVolume !== NONE) await this.virsh.run(['vol-info', '--pool', this.pool, this.baseVolume]);
      if (this.network !== NONE) await this.virsh.run(['net-info', this.network]);
    } catch (err) {
      check.problem(`LIBVIRT_URI/LIBVIRT_POOL/LIBVIRT_VOL_NAME/LIBVIRT_NET (${(err as Error).message})`);
    }
    check.throwIfAny();
  }

  private async adopt(uuid: string, name: string): Promise<Instance> {
    const meta = (await this.metadata(uuid)) ?? {
      createdAt: '',
      podName: '',
      podNamespace: '',
      sandboxId: '',
      tags: {},
    };
    const state = (await this.virsh.run(['domstate', uuid])).trim();
    if (state === 'shut off' || state === 'crashed') await this.virsh.run(['start', uuid]);
    this.log.info({ name, id: uuid, state }, 'adopting existing domain with the same name');
    const ips = this.network === NONE ? [] : await this.waitForIps(uuid);
    return toInstance(uuid, name, meta, ips, 'running');
  }

  private async deleteDomain(id: string): Promise<void> {
    let xml: string;
    try {
      xml = await this.virsh.run(['dumpxml', id]);
    } catch (err) {
      if (err instanceof VirshError && err.noDomain) return;
      throw err;
    }
    const name = /<name>([^<]*)<\/name>/.exec(xml)?.[1] ?? '';
    try {
      await this.virsh.run(['destroy', id]);
    } catch (err) {
      if (!(err instanceof VirshError && (err.notRunning || err.noDomain))) throw err;
    }
    // Only volumes this layer (or upstream) named after the VM; a shared disk must survive.
    for (const d of parseDiskSources(xml)) {
      if (d.pool && d.volume?.startsWith(`${name}-`)) await this.deleteVolume(d.pool, d.volume);
      else if (d.file && d.file.split('/').pop()?.startsWith(`${name}-`)) await this.deleteVolume(undefined, d.file);
    }
    try {
      await this.virsh.run(['undefine', id, '--nvram']);
    } catch (err) {
      if (err instanceof VirshError && err.noDomain) return;
      try {
        await this.virsh.run(['undefine', id]);
      } catch (err2) {
        if (!(err2 instanceof VirshError && err2.noDomain)) throw err2;
      }
    }
    this.log.info({ id, name }, 'domain deleted');
  }

  private async createRootVolume(name: string): Promise<{ pool: string; volume: string }> {
    const volume = `${name}-root.qcow2`;
    const sizeGiB = parseNonNegativeInt(get(this.config, 'LIBVIRT_ROOT_DISK_SIZE')) || 10;
    try {
      await this.virsh.run([
        'vol-create-as',
        this.pool,
        volume,
        `${sizeGiB}G`,
        '--format',
        'qcow2',
        '--backing-vol',
        this.baseVolume,
        '--backing-vol-format',
        'qcow2',
      ]);
    } catch (err) {
      // Left over from a create that died before define: reuse it.
      if (!(err instanceof VirshError && /already exists|exists already/i.test(err.stderr))) throw err;
    }
    return { pool: this.pool, volume };
  }

  private async deleteVolume(pool: string | undefined, volume: string): Promise<void> {
    try {
      await this.virsh.run(pool ? ['vol-delete', '--pool', pool, volume] : ['vol-delete', volume]);
    } catch (err) {
      if (!(err instanceof VirshError && err.noVolume)) throw err;
    }
  }

  private async uuidByName(name: string): Promise<string | undefined> {
    try {
      return (await this.virsh.run(['domuuid', name])).trim();
    } catch (err) {
      if (err instanceof VirshError && err.noDomain) return undefined;
      throw err;
    }
  }

  private async metadata(uuid: string): Promise<InstanceMetadata | undefined> {
    try {
      return parseInstanceMetadata(await this.virsh.run(['metadata', uuid, METADATA_NS]));
    } catch (err) {
      if (err instanceof VirshError && (err.noDomain || /metadata not found/i.test(err.stderr))) return undefined;
      throw err;
    }
  }

  private async states(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const line of (await this.virsh.run(['list', '--all'])).split('\n')) {
      const m = /^\s*(\S+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
      if (m) out.set(m[2], m[3]);
    }
    return out;
  }

  private detectDomainType(): Promise<'kvm' | 'qemu'> {
    this.domainType ??= this.virsh.run(['domcapabilities', '--virttype', 'kvm']).then(
      () => 'kvm' as const,
      () => 'qemu' as const,
    );
    return this.domainType;
  }

  private async waitForIps(uuid: string): Promise<string[]> {
    const deadline = Date.now() + this.ipWaitMs;
    for (;;) {
      const out = await this.virsh.run(['domifaddr', uuid, '--source', 'lease']).catch(() => '');
      const ips = [...out.matchAll(/\s(\d+\.\d+\.\d+\.\d+|[0-9a-f:]+:[0-9a-f:]*)\/\d+/gi)].map((m) => m[1]);
      if (ips.length || Date.now() >= deadline) return ips;
      await delay(Math.min(1000, Math.max(1, deadline - Date.now())));
    }
  }
}

function toInstance(uuid: string, name: string, meta: InstanceMetadata, ips: string[], state?: string): Instance {
  const created = Date.parse(meta.createdAt);
  return {
    id: uuid,
    name,
    ips,
    tags: { ...meta.tags },
    createdAt: new Date(Number.isNaN(created) ? 0 : created),
    state,
  };
}
