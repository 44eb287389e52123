// The peer-pod mutation (upstream cloud-api-adaptor src/webhook, pkg/mutating + pkg/utils): a pod of
// the peer-pod runtime class asks the node for one `kata.peerpods.io/vm` instead of cpu and memory,
// and carries the VM size as kata annotations, because the containers run in the VM, not on the node.
// See README.md for where `preserve` mode departs from upstream and why.
import { AdmissionDenied } from '../../runtime/index.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { QuantityError, quantityFromJSON } from '../../apimachinery/quantity/quantity.ts';

export const DEFAULT_RUNTIME_CLASS = 'kata-remote';
export const DEFAULT_EXTENDED_RESOURCE = 'kata.peerpods.io/vm';
export const GPU_RESOURCE = 'nvidia.com/gpu';

export const Annotations = {
  vcpus: 'io.katacontainers.config.hypervisor.default_vcpus',
  memory: 'io.katacontainers.config.hypervisor.default_memory',
  gpus: 'io.katacontainers.config.hypervisor.default_gpus',
} as const;

export const DROP_MODES = ['upstream', 'preserve'] as const;
export type DropMode = (typeof DROP_MODES)[number];

export interface MutatorOptions {
  /** Pods of this runtime class are mutated ($TARGET_RUNTIMECLASS). Default kata-remote. */
  targetRuntimeClass?: string;
  /** The node resource one pod VM takes ($POD_VM_EXTENDED_RESOURCE). Default kata.peerpods.io/vm. */
  extendedResource?: string;
  /** upstream: clear every container resource. preserve: keep what the VM size cannot carry. Default upstream. */
  dropResources?: DropMode;
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

/** a / b rounded up (towards zero for negatives, which validation rejects later anyway). */
function ceilDiv(a: bigint, b: bigint): bigint {
  if (a <= 0n) return -(-a / b);
  return (a + b - 1n) / b;
}

/**
 * A quantity in nano-units: exact integers, so sums over many containers never pick up
 * floating-point error before the final rounding up.
 */
function quantity(list: ResourceList | undefined, name: string, where: string): bigint {
  const v = list?.[name];
  if (v === undefined) return 0n;
  try {
    return quantityFromJSON(v).scaledValue(-9);
  } catch (err) {
    if (err instanceof QuantityError) throw new AdmissionDenied(`${where}: ${err.message}`, 400);
    throw err;
  }
}

/** Upstream's rule: the limit when a request is set and the limit is at least the request; else the request. */
function vmSize(request: bigint, limit: bigint): bigint | undefined {
  if (request !== 0n && limit >= request) return limit;
  return request > 0n ? request : undefined;
}

/** Mutates `pod` in place. Throws AdmissionDenied for what the VM cannot honour in preserve mode. */
export function mutatePod(pod: Pod, opts: MutatorOptions = {}): MutationResult {
  const target = opts.targetRuntimeClass || DEFAULT_RUNTIME_CLASS;
  const resource = opts.extendedResource || DEFAULT_EXTENDED_RESOURCE;
  const mode = opts.dropResources ?? 'upstream';
  const spec = pod.spec;
  if (!spec || spec.runtimeClassName !== target) return { matched: false, warnings: [] };
  const containers = spec.containers ?? [];
  // No container is invalid anyway; upstream would index past the end. Leave it to validation.
  if (containers.length === 0) return { matched: true, warnings: [] };
  const all = [
    ...containers.map((c, i) => ({ c, path: `spec.containers[${i}]` })),
    ...(spec.initContainers ?? []).map((c, i) => ({ c, path: `spec.initContainers[${i}]` })),
  ];

  // Summed over containers and init containers (not max'd, overhead ignored), as upstream.
  const sum = { cpuReq: 0n, cpuLim: 0n, memReq: 0n, memLim: 0n, gpuReq: 0n };
  for (const { c, path } of all) {
    const r = c.resources;
    sum.cpuReq += quantity(r?.requests, 'cpu', `${path}.resources.requests.cpu`);
    sum.cpuLim += quantity(r?.limits, 'cpu', `${path}.resources.limits.cpu`);
    sum.memReq += quantity(r?.requests, 'memory', `${path}.resources.requests.memory`);
    sum.memLim += quantity(r?.limits, 'memory', `${path}.resources.limits.memory`);
    sum.gpuReq += quantity(r?.requests, GPU_RESOURCE, `${path}.resources.requests.${GPU_RESOURCE}`);
  }

  const annotations: Record<string, string> = {};
  const vcpus = vmSize(sum.cpuReq, sum.cpuLim);
  if (vcpus !== undefined) annotations[Annotations.vcpus] = ceilDiv(vcpus, NANO).toString();
  const mem = vmSize(sum.memReq, sum.memLim);
  if (mem !== undefined) annotations[Annotations.memory] = ceilDiv(mem, NANO << 20n).toString();
  if (sum.gpuReq > 0n) annotations[Annotations.gpus] = ceilDiv(sum.gpuReq, NANO).toString();

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
