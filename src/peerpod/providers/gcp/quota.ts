// How many more pod VMs the project's regional Compute Engine quotas hold (regions.get `quotas[]`:
// metric, limit, usage): the VM count (INSTANCES), the regional vCPUs (CPUS) and, when the region
// reports one, the vCPUs of the machine type's family (`N2D_CPUS` for n2d-standard-4); the vCPUs
// of the machine type come from machineTypes.get in the configured zone. The quota that holds the
// fewest VMs decides.
import type { MachineTypesClient, RegionsClient, protos } from '@google-cloud/compute';
import type { ProviderCapacity } from '../capacity.ts';
import { unknownCapacity } from '../capacity.ts';

type Quota = protos.google.cloud.compute.v1.IQuota;

export interface GcpQuotaClients {
  regions: RegionsClient;
  machineTypes: MachineTypesClient;
}

/** The zone's region: `europe-west4-a` → `europe-west4`. */
export function regionOf(zone: string): string {
  return zone.split('-').slice(0, -1).join('-');
}

/** `n2d-standard-4` → `N2D_CPUS`; `custom-2-4096` (N1) → none, N1 counts under CPUS alone. */
export function familyQuotaMetric(machineType: string): string | undefined {
  const family = machineType.split('-')[0];
  if (!family || family === machineType || family === 'custom') return undefined;
  return `${family.toUpperCase()}_CPUS`;
}

export interface GcpQuotaDeps {
  project: string;
  zone: string;
  clients: () => Promise<GcpQuotaClients>;
  mapError: (op: string, err: unknown) => Error;
}

export class GcpRegionQuota {
  private readonly cpusByType = new Map<string, Promise<number>>();

  constructor(private readonly deps: GcpQuotaDeps) {}

  async capacity(machineType: string): Promise<ProviderCapacity> {
    const region = regionOf(this.deps.zone);
    const { regions } = await this.deps.clients();
    let quotas: Quota[];
    let perVm: number;
    try {
      const [[r], cpus] = await Promise.all([
        regions.get({ project: this.deps.project, region }),
        this.vcpusOf(machineType),
      ]);
      quotas = r.quotas ?? [];
      perVm = cpus;
    } catch (err) {
      throw this.deps.mapError(`regions.get ${region}`, err);
    }
    const byMetric = new Map(quotas.filter((q) => q.metric).map((q) => [q.metric as string, q]));
    const family = familyQuotaMetric(machineType);
    const parts: Array<{ available: number; text: string }> = [];
    const add = (metric: string, per: number, unit: string) => {
      const q = byMetric.get(metric);
      if (!q || q.limit === undefined || q.limit === null) return;
      const usage = q.usage ?? 0;
      const n = Math.floor(Math.max(0, q.limit - usage) / per);
      parts.push({ available: n, text: `${metric} ${usage}/${q.limit} used in ${region}${unit}: ${n} more` });
    };
    add('INSTANCES', 1, '');
    add('CPUS', perVm, `, ${perVm} per ${machineType}`);
    if (family) add(family, perVm, `, ${perVm} per ${machineType}`);
    if (parts.length === 0) return unknownCapacity(`no INSTANCES or CPUS quota reported for ${region}`);
    const fewest = Math.min(...parts.map((p) => p.available));
    return { available: fewest, reason: 'Quota', message: parts.map((p) => p.text).join('; ') };
  }

  /** The machine type's vCPUs (guestCpus), once per type. */
  private vcpusOf(machineType: string): Promise<number> {
    let p = this.cpusByType.get(machineType);
    if (!p) {
      p = (async () => {
        const { machineTypes } = await this.deps.clients();
        const [mt] = await machineTypes.get({ project: this.deps.project, zone: this.deps.zone, machineType });
        if (!mt.guestCpus) throw new Error(`machine type ${machineType} reports no guestCpus`);
        return mt.guestCpus;
      })();
      p.catch(() => this.cpusByType.delete(machineType));
      this.cpusByType.set(machineType, p);
    }
    return p;
  }
}
