// The text of a PeerPod's `peerpods.io/vm-size` annotation (PeerPodAnnotations.vmSize): written by
// the adaptor when it records the VM, read back by the PeerPodConfig controller to size its capacity
// answer by the VMs in use. One definition of the format for both.

/** A VM size as a pod asks for it: 0 leaves that part to the provider's default. */
export interface VmSizeText {
  vcpus: number;
  /** MiB. */
  memoryMiB: number;
  instanceType?: string;
}

/** `<vCPUs>/<memory>Mi` (`default` for a part left to the provider), `default`, or the machine type. */
export function formatVmSize(size: VmSizeText): string {
  if (size.instanceType) return size.instanceType;
  if (size.vcpus === 0 && size.memoryMiB === 0) return 'default';
  return `${size.vcpus || 'default'}/${size.memoryMiB ? `${size.memoryMiB}Mi` : 'default'}`;
}

const PART = /^(?:default|(\d+))\/(?:default|(\d+)Mi)$/;

/** The inverse of formatVmSize; anything else that is not empty is a machine type. */
export function parseVmSize(text: string): VmSizeText | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (t === 'default') return { vcpus: 0, memoryMiB: 0 };
  const m = PART.exec(t);
  if (!m) return { vcpus: 0, memoryMiB: 0, instanceType: t };
  const n = (s: string | undefined) => (s === undefined ? 0 : Number(s));
  const size = { vcpus: n(m[1]), memoryMiB: n(m[2]) };
  return Number.isSafeInteger(size.vcpus) && Number.isSafeInteger(size.memoryMiB) ? size : undefined;
}
