// Resource arithmetic for the scheduler, in plain numbers so the per-node fit check on the hot
// path never touches bigints or quantity parsing: cpu in millicores, everything else in whole
// units (bytes for memory), as kube-scheduler's framework.Resource keeps them.
import { parseQuantity } from '../../../apimachinery/quantity/quantity.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

export type ResourceVec = Map<string, number>;

export interface PodRequests {
  res: ResourceVec;
  /** cpu/memory with kube's non-zero defaults (100m, 200Mi), used for scoring only. */
  nzCpu: number;
  nzMem: number;
}

const DEFAULT_NZ_CPU = 100;
const DEFAULT_NZ_MEM = 200 * 1024 * 1024;

function quantityValue(name: string, value: unknown): number {
  if (typeof value !== 'string' && typeof value !== 'number') return 0;
  try {
    const q = parseQuantity(String(value));
    return Number(name === 'cpu' ? q.toMilli() : q.toBigInt());
  } catch {
    return 0;
  }
}

export function resourceList(list: unknown): ResourceVec {
  const out: ResourceVec = new Map();
  if (typeof list !== 'object' || list === null) return out;
  for (const [k, v] of Object.entries(list as Record<string, unknown>)) out.set(k, quantityValue(k, v));
  return out;
}

/** Requests, falling back to limits per resource (what apiserver defaulting does for pods). */
function containerRequests(c: JsonObject): ResourceVec {
  const resources = (c.resources ?? {}) as { requests?: unknown; limits?: unknown };
  const req = resourceList(resources.requests);
  for (const [k, v] of resourceList(resources.limits)) if (!req.has(k)) req.set(k, v);
  return req;
}

function addInto(into: ResourceVec, from: ResourceVec): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

function maxInto(into: ResourceVec, from: ResourceVec): void {
  for (const [k, v] of from) if (v > (into.get(k) ?? 0)) into.set(k, v);
}

/**
 * resourcehelper.PodRequests: max(sum of containers + sidecars, each init container's peak)
 * plus pod overhead. Restartable (sidecar) init containers keep running, so they accumulate.
 */
export function podRequests(spec: JsonObject): PodRequests {
  const sum: ResourceVec = new Map();
  for (const c of (spec.containers ?? []) as JsonObject[]) addInto(sum, containerRequests(c));
  const sidecars: ResourceVec = new Map();
  const initPeak: ResourceVec = new Map();
  for (const c of (spec.initContainers ?? []) as JsonObject[]) {
    const req = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      addInto(sidecars, req);
      maxInto(initPeak, sidecars);
    } else {
      const peak = new Map(sidecars);
      addInto(peak, req);
      maxInto(initPeak, peak);
    }
  }
  addInto(sum, sidecars);
  maxInto(sum, initPeak);
  addInto(sum, resourceList(spec.overhead));
  for (const [k, v] of sum) if (v === 0) sum.delete(k);
  return {
    res: sum,
    nzCpu: sum.get('cpu') || DEFAULT_NZ_CPU,
    nzMem: sum.get('memory') || DEFAULT_NZ_MEM,
  };
}

export function isZeroRequest(r: PodRequests): boolean {
  return r.res.size === 0;
}
