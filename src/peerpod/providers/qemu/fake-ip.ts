// QEMU VMs here have no guest network (disk-less, `-nodefaults`), but the operators expect each
// instance to report an IP as a cloud VM would. The address is fake: derived from the VM's UUID in
// FAKE_IP_RANGE, stable across restarts, routable nowhere. Callers must not try to reach it.
import { createHash } from 'node:crypto';

export const FAKE_IP_RANGE = '10.254.0.0/16';

export function fakeIp(uuid: string): string {
  const h = createHash('sha256').update(uuid).digest().readUInt16BE(0);
  // Skip the network (.0.0) and broadcast (.255.255) addresses.
  const host = 1 + (h % 65534);
  return `10.254.${host >> 8}.${host & 255}`;
}
