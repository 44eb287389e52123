// The peer-pod mutation (upstream cloud-api-adaptor src/webhook, pkg/mutating + pkg/utils): a pod of
// the peer-pod runtime class asks the node for one `kata.peerpods.io/vm` instead of cpu and memory,
// and carries the VM size as kata annotations, because the containers run in the VM, not on the node.
// See README.md for where `preserve` mode departs from upstream and why.
import { AdmissionDenied } from '../../runtime/index.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { QuantityError, quantityFromJSON } from '../../apimachinery/quantity/quantity.ts';
import { assertPodShape } from './decode.ts';
import {
  DEFAULT_MAX_MEMORY_MIB,
  DEFAULT_MAX_VCPUS,
  checkSize,
  checkSizeAnnotation,
  negativeQuantity,
  type SizeField,
  type SizeLimit,
} from './vm-limits.ts';

import { DEFAULT_EXTENDED_RESOURCE, DEFAULT_RUNTIME_CLASS } from './defaults.ts';
import type { DropMode } from './defaults.ts';

export { DEFAULT_EXTENDED_RESOURCE, DEFAULT_RUNTIME_CLASS, DROP_MODES } from './defaults.ts';
export type { DropMode } from './defaults.ts';
export const GPU_RESOURCE = 'nvidia.com/gpu';

export const Annotations = {
  vcpus: 'io.katacontainers.config.hypervisor.default_vcpus',
  memory: 'io.katacontainers.config.hypervisor.default_memory',
  gpus: 'io.katacontainers.config.hypervisor.default_gpus',
} as const;

export interface MutatorOptions {
  /** Pods of this runtime class are mutated ($TARGET_RUNTIMECLASS). Default kata-remote. */
  targetRuntimeClass?: string;
  /** The node resource one pod VM takes ($POD_VM_EXTENDED_RESOURCE). Default kata.peerpods.io/vm. */
  extendedResource?: string;
  /**
   * More RuntimeClasses, each with the resource of its provider (several providers in one cluster);
   * an entry for the target RuntimeClass wins over extendedResource. Default none.
   */
  runtimeClassResources?: Readonly<Record<string, string>>;
  /** upstream: clear every container resource. preserve: keep what the VM size cannot carry. Default upstream. */
  dropResources?: DropMode;
  /** The largest VM, in vCPUs, a pod may ask for (`--max-vcpus`). Default 2048. */
  maxVcpus?: number;
  /** The largest VM memory, in MiB, a pod may ask for (`--max-memory`). Default 32 TiB. */
  maxMemoryMiB?: number;
}

type ResourceList = Record<string, string | number>;

export interface Resources {
  requests?: ResourceList;
  limits?: ResourceList;
  claims?: unknown[];
}

interface Container {
  name?: string;
  resources?: Resources;
}

export interface Pod extends KubeObject {
  spec?: { runtimeClassName?: string; containers?: Container[]; initContainers?: Container[] };
}

export interface MutationResult {
  /** True when the pod is of the target runtime class (and so was rewritten). */
  matched: boolean;
  warnings: string[];
}

/** Resources the VM size annotations stand for: they never stay on the containers. */
const SIZED = new Set(['cpu', 'memory', GPU_RESOURCE]);
const isHugePages = (name: string): boolean => name.startsWith('hugepages-');

const NANO = 1_000_000_000n;

/** a / b rounded up; `a` is never negative (negative quantities are denied). */
function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** A sum in nano-units (exact integers, so many containers never round twice) and the fields in it. */
interface Sum {
  nano: bigint;
  fields: SizeField[];
}

const emptySum = (): Sum => ({ nano: 0n, fields: [] });

/** Adds `list[name]` to `sum`; a malformed quantity is a 400, a negative one a 422, both naming the field. */
function addQuantity(sum: Sum, list: ResourceList | undefined, name: string, path: string): void {
  const value = list?.[name];
  if (value === undefined) return;
  let nano: bigint;
  try {
    nano = quantityFromJSON(value).scaledValue(-9);
  } catch (err) {
    if (err instanceof QuantityError) throw new AdmissionDenied(`${path}: ${err.message}`, 400);
    throw err;
  }
  if (nano < 0n) throw negativeQuantity({ path, value });
  sum.nano += nano;
  if (nano > 0n) sum.fields.push({ path, value });
}

/** Upstream's rule: the limit when a request is set and the limit is at least the request; else the request. */
function vmSize(request: Sum, limit: Sum): Sum | undefined {
  if (request.nano !== 0n && limit.nano >= request.nano) return limit;
  return request.nano > 0n ? request : undefined;
}

/** The resource a pod VM of `runtimeClass` takes; undefined for a RuntimeClass that is not ours. */
export function resourceFor(runtimeClass: string, opts: MutatorOptions): string | undefined {
  const routed = opts.runtimeClassResources;
  if (routed && Object.hasOwn(routed, runtimeClass)) return routed[runtimeClass];
  const target = opts.targetRuntimeClass || DEFAULT_RUNTIME_CLASS;
  return runtimeClass === target ? opts.extendedResource || DEFAULT_EXTENDED_RESOURCE : undefined;
}

/** Mutates `pod` in place. Throws AdmissionDenied for what the VM cannot honour in preserve mode. */
export function mutatePod(pod: Pod, opts: MutatorOptions = {}): MutationResult {
  const mode = opts.dropResources ?? 'upstream';
  assertPodShape(pod);
  const spec = pod.spec;
  const resource = spec?.runtimeClassName ? resourceFor(spec.runtimeClassName, opts) : undefined;
  if (!spec || !resource) return { matched: false, warnings: [] };
  const containers = spec.containers ?? [];
  // No container is invalid anyway; upstream would index past the end. Leave it to validation.
  if (containers.length === 0) return { matched: true, warnings: [] };
  const all = [
    ...containers.map((c, i) => ({ c, path: `spec.containers[${i}]` })),
    ...(spec.initContainers ?? []).map((c, i) => ({ c, path: `spec.initContainers[${i}]` })),
  ];

  // Summed over containers and init containers (not max'd, overhead ignored), as upstream.
  const sum = { cpuReq: emptySum(), cpuLim: emptySum(), memReq: emptySum(), memLim: emptySum(), gpuReq: emptySum() };
  for (const { c, path } of all) {
    const r = c.resources;
    addQuantity(sum.cpuReq, r?.requests, 'cpu', `${path}.resources.requests.cpu`);
    addQuantity(sum.cpuLim, r?.limits, 'cpu', `${path}.resources.limits.cpu`);
    addQuantity(sum.memReq, r?.requests, 'memory', `${path}.resources.requests.memory`);
    addQuantity(sum.memLim, r?.limits, 'memory', `${path}.resources.limits.memory`);
    addQuantity(sum.gpuReq, r?.requests, GPU_RESOURCE, `${path}.resources.requests.${GPU_RESOURCE}`);
  }

  const limits = sizeLimits(opts);
  const annotations: Record<string, string> = {};
  const vcpus = vmSize(sum.cpuReq, sum.cpuLim);
  if (vcpus !== undefined) {
    const whole = ceilDiv(vcpus.nano, NANO);
    checkSize(whole, vcpus.fields, limits.vcpus);
    annotations[Annotations.vcpus] = whole.toString();
  }
  const mem = vmSize(sum.memReq, sum.memLim);
  if (mem !== undefined) {
    const mib = ceilDiv(mem.nano, NANO << 20n);
    checkSize(mib, mem.fields, limits.memory);
    annotations[Annotations.memory] = mib.toString();
  }
  if (sum.gpuReq.nano > 0n) annotations[Annotations.gpus] = ceilDiv(sum.gpuReq.nano, NANO).toString();
  // Sizes the user wrote as annotations themselves reach the adaptor just the same.
  const given = pod.metadata.annotations ?? {};
  if (!(Annotations.vcpus in annotations) && Annotations.vcpus in given)
    checkSizeAnnotation(Annotations.vcpus, given[Annotations.vcpus], limits.vcpus);
  if (!(Annotations.memory in annotations) && Annotations.memory in given)
    checkSizeAnnotation(Annotations.memory, given[Annotations.memory], limits.memory);

  const warnings: string[] = [];
  const dropped = new Set<string>();
  for (const { c, path } of all) {
    const kept = mode === 'preserve' ? preserved(c.resources, resource, path) : {};
    for (const list of [c.resources?.requests, c.resources?.limits]) {
      for (const name of Object.keys(list ?? {})) {
        if (!SIZED.has(name) && name !== resource && !(name in (kept.requests ?? {})) && !(name in (kept.limits ?? {})))
          dropped.add(name);
      }
    }
    c.resources = kept;
  }
  if (dropped.size > 0) {
    warnings.push(
      `peer-pods webhook removed ${[...dropped].sort().join(', ')} from the containers: the pod VM is sized ` +
        'from cpu, memory and nvidia.com/gpu only',
    );
  }

  const first = containers[0];
  const one = { [resource]: '1' };
  first.resources = {
    ...first.resources,
    requests: { ...first.resources?.requests, ...one },
    limits: { ...first.resources?.limits, ...one },
  };
  if (Object.keys(annotations).length > 0) {
    pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
  }
  return { matched: true, warnings };
}

function sizeLimits(opts: MutatorOptions): { vcpus: SizeLimit; memory: SizeLimit } {
  return {
    vcpus: { unit: 'vCPUs', max: opts.maxVcpus ?? DEFAULT_MAX_VCPUS, flag: '--max-vcpus' },
    memory: { unit: 'MiB of memory', max: opts.maxMemoryMiB ?? DEFAULT_MAX_MEMORY_MIB, flag: '--max-memory' },
  };
}

/**
 * What preserve mode leaves on a container: ephemeral-storage, extended resources other than the
 * GPU (the node still provides them: devices, licences, ...) and resource claims. Hugepages are
 * refused: the VM cannot be given them, and without cpu/memory the pod would fail validation with
 * an error that names neither us nor the reason.
 */
function preserved(r: Resources | undefined, resource: string, path: string): Resources {
  const out: Resources = {};
  for (const kind of ['requests', 'limits'] as const) {
    const list = r?.[kind];
    if (!list) continue;
    const keep: ResourceList = {};
    for (const [name, v] of Object.entries(list)) {
      if (isHugePages(name)) {
        throw new AdmissionDenied(
          `${path}.resources.${kind}.${name}: hugepages cannot be given to a peer-pod VM; remove the request ` +
            'or use another runtime class',
          400,
        );
      }
      if (!SIZED.has(name) && name !== resource) keep[name] = v;
    }
    if (Object.keys(keep).length > 0) out[kind] = keep;
  }
  if (r?.claims?.length) out.claims = r.claims;
  return out;
}
