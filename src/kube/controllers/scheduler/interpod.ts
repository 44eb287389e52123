// Required inter-pod affinity and anti-affinity: kube-scheduler's InterPodAffinity filter
// (plugins/interpodaffinity/filtering.go), run after NodeResourcesFit.
//
// The "existing pods" are the pods bound (or assumed) to a known node that are not terminal;
// terminating pods still count, as they do in kube-scheduler's cache. Per scheduling attempt a
// pre-filter pass counts, per topology pair (topologyKey=value of the node's label):
// - existing pods whose required anti-affinity terms match the incoming pod (symmetry);
// - existing pods matching all of the incoming pod's required affinity terms;
// - existing pods matching each of the incoming pod's required anti-affinity terms.
// A node is then rejected when it lacks a topology key of an affinity term or its pair has no
// matching pod — unless no pod matches anywhere and the incoming pod matches its own terms (the
// first pod of a self-affine group) — or when its pair holds a pod the incoming pod's
// anti-affinity selects, or a pod whose anti-affinity selects the incoming pod.
//
// Terms: labelSelector (null selects nothing), namespaces and namespaceSelector (null, with no
// namespaces, means the pod's own namespace; `{}` means all), topologyKey. Not supported:
// preferredDuringScheduling terms (no scoring) and matchLabelKeys/mismatchLabelKeys. A term whose
// selector does not parse (pods are not validated for affinity here) selects nothing.
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import {
  labelSelectorFromObject,
  nothing,
  type LabelMatcher,
  type LabelSelector,
} from '../../../apimachinery/selectors/label.ts';
import type { NodeInfo } from './predicates.ts';

export const REASON_POD_AFFINITY = "node(s) didn't match pod affinity rules";
export const REASON_POD_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const INTER_POD_REASONS: ReadonlySet<string> = new Set([
  REASON_POD_AFFINITY,
  REASON_POD_ANTI_AFFINITY,
  REASON_EXISTING_ANTI_AFFINITY,
]);

/** framework.AffinityTerm. */
export interface AffinityTerm {
  namespaces: ReadonlySet<string>;
  namespaceSelector: LabelMatcher;
  selector: LabelMatcher;
  topologyKey: string;
}

/** What the filter needs of a pod, incoming or existing. */
export interface AffinityPod {
  namespace: string;
  labels: Readonly<Record<string, string>>;
  affinity: AffinityTerm[];
  antiAffinity: AffinityTerm[];
}

interface PodAffinityTerm {
  labelSelector?: LabelSelector | null;
  namespaces?: string[] | null;
  namespaceSelector?: LabelSelector | null;
  topologyKey?: string;
}

function selectorOf(s: LabelSelector | null | undefined): LabelMatcher {
  try {
    return labelSelectorFromObject(s);
  } catch {
    return nothing;
  }
}

function termOf(namespace: string, t: PodAffinityTerm): AffinityTerm {
  const names = t.namespaces ?? [];
  const hasNsSelector = t.namespaceSelector !== undefined && t.namespaceSelector !== null;
  return {
    namespaces: new Set(names.length === 0 && !hasNsSelector ? [namespace] : names),
    namespaceSelector: selectorOf(t.namespaceSelector),
    selector: selectorOf(t.labelSelector),
    topologyKey: String(t.topologyKey ?? ''),
  };
}

export function affinityPodOf(pod: JsonObject): AffinityPod {
  const meta = (pod.metadata ?? {}) as ObjectMeta;
  const namespace = meta.namespace ?? '';
  const affinity = (((pod.spec ?? {}) as JsonObject).affinity ?? {}) as {
    podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] | null };
    podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] | null };
  };
  const terms = (list: PodAffinityTerm[] | null | undefined): AffinityTerm[] =>
    (list ?? []).filter((t) => t && typeof t === 'object').map((t) => termOf(namespace, t));
  return {
    namespace,
    labels: meta.labels ?? {},
    affinity: terms(affinity.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    antiAffinity: terms(affinity.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
  };
}

/** AffinityTerm.Matches: the pod's namespace is named or selected, and its labels selected. */
function termMatches(
  term: AffinityTerm,
  pod: AffinityPod,
  nsLabels: (ns: string) => Readonly<Record<string, string>> | undefined,
): boolean {
  const nsOk =
    term.namespaces.has(pod.namespace) ||
    (term.namespaceSelector !== nothing && term.namespaceSelector.matches(nsLabels(pod.namespace) ?? {}));
  return nsOk && term.selector.matches(pod.labels);
}

function matchesAll(
  terms: AffinityTerm[],
  pod: AffinityPod,
  nsLabels: (ns: string) => Readonly<Record<string, string>> | undefined,
): boolean {
  return terms.length > 0 && terms.every((t) => termMatches(t, pod, nsLabels));
}

export interface ExistingPod {
  node: string;
  pod: AffinityPod;
}

/** A node filter for one attempt, or undefined when no term concerns the incoming pod. */
export type InterPodFilter = (node: NodeInfo) => string | undefined;

/**
 * PreFilter: `existing` are all existing pods when the incoming pod has terms, or at least
 * those with required anti-affinity otherwise. `nsLabels` gives a namespace's labels.
 */
export function interPodFilter(
  incoming: AffinityPod,
  existing: Iterable<ExistingPod>,
  nodes: ReadonlyMap<string, NodeInfo>,
  nsLabels: (ns: string) => Readonly<Record<string, string>> | undefined,
): InterPodFilter | undefined {
  const existingAnti = new Map<string, number>();
  const affinityCounts = new Map<string, number>();
  const antiCounts = new Map<string, number>();
  const pair = (key: string, value: string): string => `${key}\u0000${value}`;
  const bump = (m: Map<string, number>, node: NodeInfo, key: string): void => {
    const value = node.labels[key];
    if (value === undefined) return;
    const p = pair(key, value);
    m.set(p, (m.get(p) ?? 0) + 1);
  };
  const hasOwn = incoming.affinity.length > 0 || incoming.antiAffinity.length > 0;
  for (const e of existing) {
    const node = nodes.get(e.node);
    if (!node) continue;
    for (const t of e.pod.antiAffinity) if (termMatches(t, incoming, nsLabels)) bump(existingAnti, node, t.topologyKey);
    if (!hasOwn) continue;
    if (matchesAll(incoming.affinity, e.pod, nsLabels))
      for (const t of incoming.affinity) bump(affinityCounts, node, t.topologyKey);
    for (const t of incoming.antiAffinity) if (termMatches(t, e.pod, nsLabels)) bump(antiCounts, node, t.topologyKey);
  }
  if (!hasOwn && existingAnti.size === 0) return undefined;
  // The first pod of a group with affinity to itself may go anywhere the topology keys exist.
  const selfAffine = affinityCounts.size === 0 && matchesAll(incoming.affinity, incoming, nsLabels);

  return (node) => {
    let podsExist = true;
    for (const t of incoming.affinity) {
      const value = node.labels[t.topologyKey];
      if (value === undefined) return REASON_POD_AFFINITY;
      if ((affinityCounts.get(pair(t.topologyKey, value)) ?? 0) <= 0) podsExist = false;
    }
    if (!podsExist && !selfAffine) return REASON_POD_AFFINITY;
    if (antiCounts.size > 0) {
      for (const t of incoming.antiAffinity) {
        const value = node.labels[t.topologyKey];
        if (value !== undefined && (antiCounts.get(pair(t.topologyKey, value)) ?? 0) > 0)
          return REASON_POD_ANTI_AFFINITY;
      }
    }
    if (existingAnti.size > 0) {
      for (const [key, value] of Object.entries(node.labels))
        if ((existingAnti.get(pair(key, value)) ?? 0) > 0) return REASON_EXISTING_ANTI_AFFINITY;
    }
    return undefined;
  };
}
