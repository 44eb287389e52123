// How many more pod VMs a provider can hold (CAA#1847: orphans filled an Azure quota of 350 VMs and
// nothing upstream looked). Local providers answer from the host they run VMs on; clouds from their
// quota APIs. An answer always carries its reason and the numbers it came from, because it ends up
// in the PeerPodConfig's status for a person to read.
import { access, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { get, parseNonNegativeInt } from './config.ts';
import type { ProviderConfig } from './config.ts';

/** What bounds the answer: the host's memory or CPUs, a cloud quota, or nothing known. */
export type CapacityReason = 'HostMemory' | 'HostCPU' | 'Quota' | 'Unknown';

/** The VM size to count with; 0 means the provider's configured default (as in CreateInstanceRequest). */
export interface CapacityRequest {
  vcpus: number;
  /** MiB. */
  memoryMiB: number;
  instanceType?: string;
}

export interface ProviderCapacity {
  /** More VMs of the requested size that fit now; undefined when the provider cannot tell. */
  available: number | undefined;
  reason: CapacityReason;
  /** The numbers behind `available`, e.g. `MemAvailable 3012 MiB / 128 MiB per VM = 23`. */
  message: string;
}

export interface HostResources {
  memAvailableMiB: number;
  onlineCpus: number;
  /** Without /dev/kvm, QEMU emulates (TCG): the VMs still run, slowly. */
  kvm: boolean;
}

/**
 * vCPUs the host may hand out per online CPU (HOST_CPU_ALLOCATION_RATIO): vCPUs are time-shared, so
 * CPUs are overcommitted; 16 is OpenStack Nova's default `cpu_allocation_ratio`. Memory is not
 * overcommitted: MemAvailable is what a new VM can take without swapping.
 */
export const DEFAULT_CPU_ALLOCATION_RATIO = 16;

export function unknownCapacity(message: string): ProviderCapacity {
  return { available: undefined, reason: 'Unknown', message };
}

/** /proc/meminfo's MemAvailable, the online CPUs and whether /dev/kvm exists. */
export async function readHostResources(paths: { meminfo?: string; kvm?: string } = {}): Promise<HostResources> {
  const meminfo = await readFile(paths.meminfo ?? '/proc/meminfo', 'utf8');
  const m = /^MemAvailable:\s+(\d+)\s+kB$/m.exec(meminfo);
  if (!m) throw new Error('no MemAvailable line in /proc/meminfo');
  let kvm = true;
  try {
    await access(paths.kvm ?? '/dev/kvm');
  } catch {
    kvm = false;
  }
  return { memAvailableMiB: Math.floor(Number(m[1]) / 1024), onlineCpus: availableParallelism(), kvm };
}

/** The host's answer for VMs of `size`: the smaller of what its memory and its CPUs hold. */
export function hostCapacity(
  host: HostResources,
  size: { vcpus: number; memoryMiB: number },
  cpuAllocationRatio: number,
): ProviderCapacity {
  const byMemory = Math.floor(host.memAvailableMiB / size.memoryMiB);
  // A VM with more vCPUs than the host has CPUs would only ever run time-sliced on itself.
  const byCpu = size.vcpus > host.onlineCpus ? 0 : Math.floor((host.onlineCpus * cpuAllocationRatio) / size.vcpus);
  const kvm = host.kvm ? '' : '; no /dev/kvm: VMs run emulated (TCG), slowly';
  const memory = `MemAvailable ${host.memAvailableMiB} MiB / ${size.memoryMiB} MiB per VM = ${byMemory}`;
  const cpu = `${host.onlineCpus} online CPU(s) x ${cpuAllocationRatio} / ${size.vcpus} vCPU(s) per VM = ${byCpu}`;
  if (byCpu < byMemory) return { available: byCpu, reason: 'HostCPU', message: `${cpu} (${memory})${kvm}` };
  return { available: byMemory, reason: 'HostMemory', message: `${memory} (${cpu})${kvm}` };
}

/** HOST_CPU_ALLOCATION_RATIO from the provider settings (a positive number), else the default. */
export function cpuAllocationRatio(config: ProviderConfig): number {
  const v = Number(get(config, 'HOST_CPU_ALLOCATION_RATIO'));
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_CPU_ALLOCATION_RATIO;
}

/** The request's size, or the provider's defaults (`<PREFIX>_…` settings) for the parts it leaves 0. */
export function sizeOrDefault(
  req: CapacityRequest,
  config: ProviderConfig,
  keys: { vcpus: string; memoryMiB: string },
  defaults: { vcpus: number; memoryMiB: number },
): { vcpus: number; memoryMiB: number } {
  return {
    vcpus: req.vcpus > 0 ? req.vcpus : parseNonNegativeInt(get(config, keys.vcpus)) || defaults.vcpus,
    memoryMiB:
      req.memoryMiB > 0 ? req.memoryMiB : parseNonNegativeInt(get(config, keys.memoryMiB)) || defaults.memoryMiB,
  };
}

/** The host answer for a local provider; a host that cannot be read is "unknown", never a guess. */
export async function localHostCapacity(
  size: { vcpus: number; memoryMiB: number },
  config: ProviderConfig,
  read: () => Promise<HostResources> = readHostResources,
): Promise<ProviderCapacity> {
  let host: HostResources;
  try {
    host = await read();
  } catch (err) {
    return unknownCapacity(`cannot read the host's resources: ${(err as Error).message}`);
  }
  return hostCapacity(host, size, cpuAllocationRatio(config));
}
