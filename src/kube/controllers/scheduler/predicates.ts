// The scheduler's filters, in kube-scheduler's default-profile order: NodeUnschedulable,
// TaintToleration, NodeAffinity, NodeResourcesFit, InterPodAffinity (interpod.ts). A
// node is rejected by the first filter that fails, with that plugin's reason strings (the
// FailedScheduling message counts them).
import { isNodeReady } from '../../../apimachinery/core/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { InterPodFilter } from './interpod.ts';
import { resourceList, type PodRequests, type ResourceVec } from './resources.ts';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/** What the scheduler keeps of a Node. */
export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  allocatable: ResourceVec;
  allowedPods: number;
  /** Changes only when something a filter reads changes (heartbeats do not wake pods). */
  signature: string;
}

/** Tallies of the pods bound to a node (assumed ones included). */
export interface NodeUsage {
  requested: ResourceVec;
  pods: number;
  nzCpu: number;
  nzMem: number;
}

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const REASON_TOO_MANY_PODS = 'Too many pods';

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if (!t.operator || t.operator === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

function toleratedBy(tolerations: Toleration[], taint: Taint): boolean {
  for (const t of tolerations) if (tolerates(t, taint)) return true;
  return false;
}

export function nodeInfoFrom(node: JsonObject): NodeInfo {
  const meta = (node.metadata ?? {}) as JsonObject;
  const spec = (node.spec ?? {}) as JsonObject;
  const status = (node.status ?? {}) as JsonObject;
  const labels = (meta.labels ?? {}) as Record<string, string>;
  const taints = ((spec.taints ?? []) as unknown as Taint[]).filter((t) => typeof t?.key === 'string');
  const ready = isNodeReady(node);
  // Until the node lifecycle controller has tainted a node that is not Ready, act as if it had:
  // kube-scheduler itself only reads taints, and the taint is what keeps pods away.
  if (!ready && !taints.some((t) => t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE)) {
    taints.push({ key: TAINT_NOT_READY, effect: 'NoSchedule' });
  }
  const allocatableRaw = status.allocatable ?? status.capacity ?? {};
  const allocatable = new Map<string, number>();
  for (const [k, v] of Object.entries(allocatableRaw as Record<string, unknown>)) allocatable.set(k, quantityOf(k, v));
  const unschedulable = spec.unschedulable === true;
  return {
    name: String(meta.name),
    labels,
    taints,
    unschedulable,
    allocatable,
    allowedPods: allocatable.get('pods') ?? 0,
    signature: JSON.stringify([labels, taints, unschedulable, allocatableRaw]),
  };
}

function quantityOf(name: string, v: unknown): number {
  return resourceList({ [name]: v }).get(name) ?? 0;
}

// ------------------------------------------------------------------ node affinity

interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}
interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

function parseIntStrict(s: string | undefined): number | undefined {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return undefined;
  return Number(s);
}

function requirementMatches(r: NodeSelectorRequirement, get: (key: string) => string | undefined): boolean {
  const value = get(r.key);
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = parseIntStrict(value);
      const want = parseIntStrict(values[0]);
      if (have === undefined || want === undefined || values.length !== 1) return false;
      return r.operator === 'Gt' ? have > want : have < want;
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: Pick<NodeInfo, 'name' | 'labels'>): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // An empty term selects nothing (nodeaffinity.nodeSelectorTerm).
  if (exprs.length === 0 && fields.length === 0) return false;
  for (const e of exprs) if (!requirementMatches(e, (k) => node.labels[k])) return false;
  for (const f of fields) {
    if (!requirementMatches(f, (k) => (k === 'metadata.name' ? node.name : undefined))) return false;
  }
  return true;
}

/** Pre-digested scheduling constraints of one pod, computed once per attempt. */
export interface PodConstraints {
  nodeSelector: Array<[string, string]>;
  requiredTerms?: NodeSelectorTerm[];
  tolerations: Toleration[];
  requests: PodRequests;
}

export function podConstraints(spec: JsonObject, requests: PodRequests): PodConstraints {
  return { ...nodeAffinityOf(spec), tolerations: (spec.tolerations ?? []) as Toleration[], requests };
}

type NodeAffinityConstraints = Pick<PodConstraints, 'nodeSelector' | 'requiredTerms'>;

/** nodeaffinity.GetRequiredNodeAffinity: a pod spec's nodeSelector and required node affinity. */
export function nodeAffinityOf(spec: JsonObject): NodeAffinityConstraints {
  const affinity = (spec.affinity ?? {}) as {
    nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
  };
  const required = affinity.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return {
    nodeSelector: Object.entries((spec.nodeSelector ?? {}) as Record<string, string>),
    requiredTerms: required ? (required.nodeSelectorTerms ?? []) : undefined,
  };
}

/** RequiredNodeAffinity.Match: the nodeSelector and one of the required terms. */
export function fitsNodeAffinity(pod: NodeAffinityConstraints, node: Pick<NodeInfo, 'name' | 'labels'>): boolean {
  for (const [k, v] of pod.nodeSelector) if (node.labels[k] !== v) return false;
  return !pod.requiredTerms || pod.requiredTerms.some((t) => termMatches(t, node));
}

// ------------------------------------------------------------------ filters

const ZERO_USAGE: NodeUsage = { requested: new Map(), pods: 0, nzCpu: 0, nzMem: 0 };

/** Reasons the pod does not fit `node`; empty when it fits. */
export function filterNode(
  pod: PodConstraints,
  node: NodeInfo,
  usage: NodeUsage = ZERO_USAGE,
  interPod?: InterPodFilter,
): string[] {
  if (node.unschedulable && !toleratedBy(pod.tolerations, { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' })) {
    return [REASON_UNSCHEDULABLE];
  }
  for (const taint of node.taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!toleratedBy(pod.tolerations, taint)) {
      return [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`];
    }
  }
  if (!fitsNodeAffinity(pod, node)) return [REASON_AFFINITY];
  const fit = fitReasons(pod.requests, node, usage);
  if (fit.length > 0 || !interPod) return fit;
  const reason = interPod(node);
  return reason ? [reason] : [];
}

const FIXED_ORDER = ['cpu', 'memory', 'ephemeral-storage'];

/** noderesources.fitsRequest: pod count first, then cpu, memory, storage, extended resources. */
function fitReasons(req: PodRequests, node: NodeInfo, usage: NodeUsage): string[] {
  const reasons: string[] = [];
  if (usage.pods + 1 > node.allowedPods) reasons.push(REASON_TOO_MANY_PODS);
  if (req.res.size === 0) return reasons;
  for (const name of FIXED_ORDER) {
    const want = req.res.get(name);
    if (want !== undefined && insufficient(node, usage, name, want)) reasons.push(`Insufficient ${name}`);
  }
  for (const [name, want] of req.res) {
    if (FIXED_ORDER.includes(name)) continue;
    if (insufficient(node, usage, name, want)) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

// Module-level rather than closures: these run for every node of every pod scheduled.
function insufficient(node: NodeInfo, usage: NodeUsage, name: string, want: number): boolean {
  return want > 0 && (node.allocatable.get(name) ?? 0) < want + (usage.requested.get(name) ?? 0);
}

function freeShare(alloc: number, used: number): number {
  return alloc > 0 ? Math.max(0, alloc - used) / alloc : 0;
}

/** Least-allocated score over cpu and memory (with non-zero request defaults), 0..1. */
export function scoreNode(req: PodRequests, node: NodeInfo, usage: NodeUsage): number {
  const cpu = freeShare(node.allocatable.get('cpu') ?? 0, usage.nzCpu + req.nzCpu);
  const mem = freeShare(node.allocatable.get('memory') ?? 0, usage.nzMem + req.nzMem);
  return (cpu + mem) / 2;
}

/** FitError.Error(): "0/N nodes are available: <count> <reason>, ... ." */
export function fitErrorMessage(numAllNodes: number, reasonsByNode: Map<string, string[]>): string {
  if (numAllNodes === 0) return 'no nodes available to schedule pods';
  const histogram = new Map<string, number>();
  for (const reasons of reasonsByNode.values()) {
    for (const r of reasons) histogram.set(r, (histogram.get(r) ?? 0) + 1);
  }
  const parts = [...histogram].map(([reason, count]) => `${count} ${reason}`).sort();
  let msg = `0/${numAllNodes} nodes are available:`;
  if (parts.length > 0) msg += ` ${parts.join(', ')}.`;
  return msg;
}
