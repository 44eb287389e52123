// Endpoints subsets as the Endpoints controller builds them: one (address, port) pair per pod and
// Service port, repacked so that addresses offering the same ports share a subset
// (pkg/api/v1/endpoints/util.go RepackSubsets), then truncated to 1000 addresses
// (endpoints_controller.go truncateEndpoints). kube orders ports and subsets by a hash; here
// they are ordered by name/port and by first address, which is as stable.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

export interface EndpointAddress extends JsonObject {
  ip: string;
}

export interface EndpointPort extends JsonObject {
  name: string;
  port: number;
  protocol: string;
}

/** One pod's contribution: its address, ready or not, offering a port (none: headless without ports). */
export interface AddressPort {
  address: EndpointAddress;
  ready: boolean;
  port?: EndpointPort;
}

export interface EndpointSubset extends JsonObject {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** maxCapacity: the most addresses an Endpoints object lists. */
export const MAX_CAPACITY = 1000;

function addressKey(a: EndpointAddress): string {
  const uid = (a.targetRef as { uid?: string } | undefined)?.uid ?? '';
  return `${a.ip}\u0000${uid}`;
}

function portKey(p: EndpointPort | undefined): string {
  return p ? JSON.stringify([p.name, p.port, p.protocol, p.appProtocol ?? null]) : '';
}

const byAddress = (a: EndpointAddress, b: EndpointAddress): number => {
  const ka = addressKey(a);
  const kb = addressKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

const byPort = (a: EndpointPort, b: EndpointPort): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.port - b.port || (a.protocol < b.protocol ? -1 : 1);

export function repackSubsets(pairs: AddressPort[]): EndpointSubset[] {
  const addresses = new Map<string, EndpointAddress>();
  // port key → (address key → ready); an address ready on a port once stays ready there.
  const byPortKey = new Map<string, { port?: EndpointPort; ready: Map<string, boolean> }>();
  for (const { address, ready, port } of pairs) {
    const ak = addressKey(address);
    if (!addresses.has(ak)) addresses.set(ak, address);
    const pk = portKey(port);
    let entry = byPortKey.get(pk);
    if (!entry) byPortKey.set(pk, (entry = { port, ready: new Map() }));
    if (entry.ready.get(ak) !== true) entry.ready.set(ak, ready);
  }
  // Ports whose address sets (with readiness) are identical share one subset.
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of byPortKey.values()) {
    const key = JSON.stringify([...ready.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ready, ports: [] }));
    if (port) g.ports.push(port);
  }
  const subsets: EndpointSubset[] = [];
  for (const { ready, ports } of groups.values()) {
    const readyAddrs: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [ak, isReady] of ready) (isReady ? readyAddrs : notReady).push(addresses.get(ak)!);
    const subset: EndpointSubset = {};
    if (readyAddrs.length > 0) subset.addresses = readyAddrs.sort(byAddress);
    if (notReady.length > 0) subset.notReadyAddresses = notReady.sort(byAddress);
    if (ports.length > 0) subset.ports = ports.sort(byPort);
    subsets.push(subset);
  }
  const first = (s: EndpointSubset): string =>
    addressKey((s.addresses ?? s.notReadyAddresses ?? [{ ip: '' }])[0]) + portKey(s.ports?.[0]);
  return subsets.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0));
}

export function addressCount(subsets: EndpointSubset[]): number {
  return subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
}

/**
 * truncateEndpoints: over MAX_CAPACITY addresses, each subset keeps its share (rounded up) of the
 * room, ready addresses first. Returns whether anything was cut.
 */
export function truncateSubsets(subsets: EndpointSubset[]): boolean {
  const totalReady = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const totalNotReady = addressCount(subsets) - totalReady;
  if (totalReady + totalNotReady <= MAX_CAPACITY) return false;
  const truncateReady = totalReady > MAX_CAPACITY;
  const max = truncateReady ? MAX_CAPACITY : MAX_CAPACITY - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = max;
  for (const s of subsets) {
    const inSubset = (truncateReady ? s.addresses : s.notReadyAddresses)?.length ?? 0;
    const toBeAdded = Math.min(Math.ceil((inSubset / numTotal) * max), canBeAdded);
    if (truncateReady) {
      s.addresses = s.addresses?.slice(0, toBeAdded);
      delete s.notReadyAddresses;
      canBeAdded -= s.addresses?.length ?? 0;
    } else {
      s.notReadyAddresses = s.notReadyAddresses?.slice(0, toBeAdded);
      canBeAdded -= s.notReadyAddresses?.length ?? 0;
    }
  }
  return true;
}
