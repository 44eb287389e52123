// Service ClusterIP allocation over one CIDR, with kube-apiserver's rules: the network address
// (and the IPv4 broadcast address) are never handed out, the first usable address belongs to
// the `kubernetes` Service, and dynamic allocation prefers the upper part of the range so that
// the lower band stays free for statically chosen IPs (KEP-3070). Kube picks at random within a
// band; this allocator walks each band in order from a cursor, which keeps tests and restarts
// deterministic while still not handing a just-released IP straight back out.
//
// Pure bookkeeping: the server decides when to allocate, persist and release.
import { isIP } from 'node:net';

export type AllocationFailure = 'NotInRange' | 'AlreadyAllocated' | 'Full' | 'InvalidIP';

export class ClusterIpAllocationError extends Error {
  readonly reason: AllocationFailure;
  constructor(reason: AllocationFailure, message: string) {
    super(message);
    this.name = 'ClusterIpAllocationError';
    this.reason = reason;
  }
}

export type IpFamily = 'IPv4' | 'IPv6';

function parseIp(ip: string): { family: IpFamily; value: bigint } | undefined {
  const fam = isIP(ip);
  if (fam === 4) {
    const value = ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
    return { family: 'IPv4', value };
  }
  if (fam === 6) {
    let text = ip;
    // An embedded dotted quad (::ffff:1.2.3.4) becomes the last two groups.
    const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    if (dotted) {
      const v4 = parseIp(dotted[1]);
      if (!v4) return undefined;
      text =
        text.slice(0, -dotted[1].length) + `${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`;
    }
    const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
    const headGroups = head ? head.split(':') : [];
    const tailGroups = tail ? tail.split(':') : [];
    const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0');
    const groups = [...headGroups, ...zeros, ...tailGroups];
    const value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
    return { family: 'IPv6', value };
  }
  return undefined;
}

function formatIp(family: IpFamily, value: bigint): string {
  if (family === 'IPv4') {
    return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  }
  const groups = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run (of at least two) of zero groups.
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export interface ClusterIpAllocatorOptions {
  /** Hold the first usable address for the `kubernetes` Service (default true). */
  reserveKubernetesServiceIp?: boolean;
}

export class ClusterIpAllocator {
  readonly cidr: string;
  readonly family: IpFamily;
  /** The address the `kubernetes` Service in `default` gets: the first usable one. */
  readonly kubernetesServiceIp: string;
  private readonly base: bigint;
  private readonly size: number;
  private readonly offset: number;
  private readonly used = new Set<number>();
  private upperCursor: number;
  private lowerCursor = 0;

  constructor(cidr = '10.96.0.0/12', options: ClusterIpAllocatorOptions = {}) {
    const [addr, bitsText] = cidr.split('/');
    const parsed = parseIp(addr ?? '');
    const bits = Number(bitsText);
    const width = parsed?.family === 'IPv6' ? 128 : 32;
    if (!parsed || bitsText === undefined || !Number.isInteger(bits) || bits < 0 || bits > width) {
      throw new Error(`invalid service CIDR ${JSON.stringify(cidr)}`);
    }
    const hostBits = BigInt(width - bits);
    const network = (parsed.value >> hostBits) << hostBits;
    this.family = parsed.family;
    this.cidr = `${formatIp(this.family, network)}/${bits}`;
    const rangeSize = 1n << hostBits;
    // The network address is skipped; IPv4 also skips broadcast; IPv6 ranges are capped like kube's bitmap.
    let max = rangeSize - 1n - (this.family === 'IPv4' ? 1n : 0n);
    if (this.family === 'IPv6' && max > 65535n) max = 65535n;
    this.size = Number(max < 0n ? 0n : max);
    this.base = network + 1n;
    // KEP-3070: min(max(16, size/16), 256) addresses at the bottom are kept for static IPs.
    this.offset = rangeSize <= 16n ? 0 : Math.min(Math.max(16, Number(rangeSize / 16n)), 256);
    this.upperCursor = this.offset;
    this.kubernetesServiceIp = formatIp(this.family, this.base);
    if ((options.reserveKubernetesServiceIp ?? true) && this.size > 0) this.used.add(0);
  }

  /** How many addresses can still be handed out. */
  free(): number {
    return this.size - this.used.size;
  }

  has(ip: string): boolean {
    const i = this.indexOf(ip);
    return i !== undefined && this.used.has(i);
  }

  /**
   * Hands out `requested` (checked against the range and existing allocations) or, without one,
   * the next free address. `None` (a headless Service) allocates nothing and is returned as is.
   */
  allocate(requested?: string): string {
    if (requested === 'None') return 'None';
    if (requested) {
      const parsed = parseIp(requested);
      if (!parsed) throw new ClusterIpAllocationError('InvalidIP', `failed to parse IP ${requested}`);
      const i = this.indexOf(requested);
      if (i === undefined) {
        throw new ClusterIpAllocationError(
          'NotInRange',
          `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${this.cidr}`,
        );
      }
      if (this.used.has(i)) throw new ClusterIpAllocationError('AlreadyAllocated', 'provided IP is already allocated');
      this.used.add(i);
      return formatIp(this.family, this.base + BigInt(i));
    }
    const i = this.next(this.offset, this.size, 'upper') ?? this.next(0, this.offset, 'lower');
    if (i === undefined) throw new ClusterIpAllocationError('Full', 'range is full');
    this.used.add(i);
    return formatIp(this.family, this.base + BigInt(i));
  }

  /** Returns the address to the pool; false when it was not allocated here. */
  release(ip: string): boolean {
    const i = this.indexOf(ip);
    if (i === undefined) return false;
    return this.used.delete(i);
  }

  /** Marks an address as taken without checks, for rebuilding state from stored Services. */
  restore(ip: string): boolean {
    const i = this.indexOf(ip);
    if (i === undefined) return false;
    this.used.add(i);
    return true;
  }

  private indexOf(ip: string): number | undefined {
    const parsed = parseIp(ip);
    if (!parsed || parsed.family !== this.family) return undefined;
    const i = parsed.value - this.base;
    if (i < 0n || i >= BigInt(this.size)) return undefined;
    return Number(i);
  }

  private next(lo: number, hi: number, band: 'upper' | 'lower'): number | undefined {
    if (hi <= lo) return undefined;
    const start = band === 'upper' ? this.upperCursor : this.lowerCursor;
    for (let n = 0; n < hi - lo; n++) {
      const i = lo + ((start - lo + n) % (hi - lo));
      if (!this.used.has(i)) {
        if (band === 'upper') this.upperCursor = i + 1 >= hi ? lo : i + 1;
        else this.lowerCursor = i + 1 >= hi ? lo : i + 1;
        return i;
      }
    }
    return undefined;
  }
}
