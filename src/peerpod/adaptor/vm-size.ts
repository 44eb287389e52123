// The VM a pod asks for, from the kata annotations the webhook (or the user) wrote. Upstream reads
// the same keys (cloud-api-adaptor src/cloud-api-adaptor/pkg/util/cloud.go).
import type { KubeObject } from '../../runtime/index.ts';

export const VmAnnotations = {
  vcpus: 'io.katacontainers.config.hypervisor.default_vcpus',
  /** MiB. */
  memory: 'io.katacontainers.config.hypervisor.default_memory',
  machineType: 'io.katacontainers.config.hypervisor.machine_type',
  image: 'io.katacontainers.config.hypervisor.image',
} as const;

export interface VmSize {
  /** 0: the provider's default. */
  vcpus: number;
  /** MiB; 0: the provider's default. */
  memoryMiB: number;
  instanceType?: string;
  image?: string;
}

/** A size annotation that is not a whole number: retrying cannot fix it, the pod must change. */
export class InvalidVmSizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidVmSizeError';
  }
}

function wholeNumber(annotations: Record<string, string>, key: string): number {
  const raw = annotations[key]?.trim();
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new InvalidVmSizeError(`annotation ${key}=${JSON.stringify(raw)} is not a whole number`);
  }
  return n;
}

export function vmSizeOf(pod: KubeObject): VmSize {
  const a = pod.metadata.annotations ?? {};
  const size: VmSize = { vcpus: wholeNumber(a, VmAnnotations.vcpus), memoryMiB: wholeNumber(a, VmAnnotations.memory) };
  const machineType = a[VmAnnotations.machineType]?.trim();
  const image = a[VmAnnotations.image]?.trim();
  if (machineType) size.instanceType = machineType;
  if (image) size.image = image;
  return size;
}
