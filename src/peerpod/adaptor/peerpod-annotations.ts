// The annotations the adaptor keeps on a PeerPod for `kubectl get peerpods -o wide` (the CRD's printer
// columns): the node, the VM's IP and its size (see PeerPodAnnotations for why annotations).
import type { KubeObject } from '../../runtime/index.ts';
import { PeerPodAnnotations, formatVmSize } from '../api/index.ts';
import type { Instance } from '../providers/index.ts';
import { vmSizeOf } from './vm-size.ts';
import type { VmSize } from './vm-size.ts';

export function sizeText(size: VmSize): string {
  return formatVmSize(size);
}

/** Written with the PeerPod, before the VM exists; the pod's size annotations were checked by then. */
export function creationAnnotations(nodeName: string, pod: KubeObject): Record<string, string> {
  return { [PeerPodAnnotations.node]: nodeName, [PeerPodAnnotations.vmSize]: sizeText(vmSizeOf(pod)) };
}

/** Written with the instance ID; also completes a PeerPod upstream's adaptor wrote. */
export function recordAnnotations(nodeName: string, pod: KubeObject, vm: Instance): Record<string, string> {
  return { ...creationAnnotations(nodeName, pod), ...(vm.ips[0] ? { [PeerPodAnnotations.ip]: vm.ips[0] } : {}) };
}

/** The entries of `want` that `obj` lacks or holds with another value; undefined when none. */
export function missingAnnotations(obj: KubeObject, want: Record<string, string>): Record<string, string> | undefined {
  const have = obj.metadata.annotations ?? {};
  const missing = Object.entries(want).filter(([k, v]) => have[k] !== v);
  return missing.length > 0 ? Object.fromEntries(missing) : undefined;
}
