// The VM sizes a provider runs for this cluster, from the PeerPods' `peerpods.io/vm-size` (the size
// each pod asked for, as the adaptor recorded it): capacity counts what the next VMs are likely to
// take, not only the provider's default size, so a cluster of large pods is not promised room for
// small ones it will never run.
import type { KubeClient } from '../../../runtime/index.ts';
import { PeerPodAnnotations, PeerPods, formatVmSize, parseVmSize } from '../../api/index.ts';
import type { PeerPod, VmSizeText } from '../../api/index.ts';

export interface SizeInUse {
  size: VmSizeText;
  /** formatVmSize(size): `default`, `2/4096Mi`, a machine type. */
  text: string;
  /** PeerPods recording it. */
  count: number;
}

/**
 * The distinct sizes recorded by PeerPods of `provider` (a PeerPod naming no provider was written
 * for the only one), most used first. A PeerPod without the annotation (written by upstream's
 * adaptor) ran at the default size.
 */
export async function sizesInUse(client: KubeClient, provider: string, signal: AbortSignal): Promise<SizeInUse[]> {
  const { items } = await client.listAll<PeerPod>(PeerPods, { signal });
  const byText = new Map<string, SizeInUse>();
  for (const pp of items) {
    const of = pp.spec?.cloudProvider ?? '';
    if (of !== '' && of !== provider) continue;
    const size = parseVmSize(pp.metadata.annotations?.[PeerPodAnnotations.vmSize] ?? '') ?? {
      vcpus: 0,
      memoryMiB: 0,
    };
    const text = formatVmSize(size);
    const entry = byText.get(text) ?? { size, text, count: 0 };
    entry.count++;
    byText.set(text, entry);
  }
  return [...byText.values()].sort((a, b) => b.count - a.count || a.text.localeCompare(b.text));
}
