// Pod VM names, with upstream's rule (cloud-api-adaptor src/cloud-providers/util/instance.go,
// GenerateInstanceName) so VMs made by either implementation look the same in a cloud console:
// `podvm-<pod>-<first 8 of sandbox id>`, lowercased, every character outside [a-z0-9-] replaced by
// "-", and the pod part cut so the whole name fits `max` (all upstream providers use 63).

export const POD_VM_NAME_PREFIX = 'podvm';
export const MAX_INSTANCE_NAME_LENGTH = 63;

function sanitize(input: string): string {
  // Iterating code points (not UTF-16 units) matches Go's rune loop: one "-" per character.
  let out = '';
  for (const c of input.toLowerCase()) out += /^[a-z0-9-]$/.test(c) ? c : '-';
  return out;
}

export function generateInstanceName(podName: string, sandboxId: string, max = MAX_INSTANCE_NAME_LENGTH): string {
  const pod = sanitize(podName);
  const sandbox = sanitize(sandboxId);
  // 10 = the two dashes plus the 8 sandbox characters.
  let podLen = pod.length;
  if (max > 0 && POD_VM_NAME_PREFIX.length + podLen + 10 > max) {
    podLen = max - POD_VM_NAME_PREFIX.length - 10;
    if (podLen < 0) throw new RangeError(`instance name limit ${max} is too small`);
  }
  return `${POD_VM_NAME_PREFIX}-${pod.slice(0, podLen)}-${sandbox.slice(0, 8)}`;
}

export function isPodVmName(name: string): boolean {
  return name.startsWith(`${POD_VM_NAME_PREFIX}-`);
}
