// Daemon pods: how one is made for a node (daemonset_util.go CreatePodTemplate and
// ReplaceDaemonSetPodNodeNameNodeAffinity), which pods count as up to date (IsPodUpdated), and
// the order kube picks the pod of a node by (podByCreationTimestampAndPhase).
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { byCreation, labelsOf, podFromTemplate, type WorkloadObject } from '../common.ts';
import { withDaemonTolerations } from './eligibility.ts';

/** apps.DefaultDaemonSetUniqueLabelKey (= ControllerRevisionHashLabelKey). */
export const REVISION_HASH_LABEL = 'controller-revision-hash';
/** extensions.DaemonSetTemplateGenerationKey. */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** The apps/v1 spelling of spec.templateGeneration, kept by the API server. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** util.GetTemplateGeneration: undefined when missing or not an integer. */
export function templateGeneration(ds: WorkloadObject): string | undefined {
  const a = isObject(ds.metadata.annotations) ? ds.metadata.annotations[TEMPLATE_GENERATION_ANNOTATION] : undefined;
  return typeof a === 'string' && /^-?\d+$/.test(a) ? String(Number(a)) : undefined;
}

/**
 * The pod for `node`: the template with the daemon tolerations, the generation and hash labels,
 * and required node affinity replaced by `metadata.name In [node]`, so the scheduler binds it
 * there (no nodeName: scheduling stays the scheduler's).
 */
export function newDaemonPod(ds: WorkloadObject, node: string, hash: string): JsonObject {
  const template = structuredClone(isObject(ds.spec.template) ? ds.spec.template : {});
  const spec = withDaemonTolerations(isObject(template.spec) ? template.spec : {});
  spec.affinity = withNodeNameAffinity(isObject(spec.affinity) ? spec.affinity : undefined, node);
  const metadata = isObject(template.metadata) ? template.metadata : {};
  const labels: Record<string, string> = { ...labelsOf(template) };
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
  if (hash) labels[REVISION_HASH_LABEL] = hash;
  return podFromTemplate(ds, 'DaemonSet', { ...template, metadata: { ...metadata, labels }, spec });
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: other required terms are dropped, preferred kept. */
function withNodeNameAffinity(affinity: JsonObject | undefined, node: string): JsonObject {
  const terms = [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }];
  const out = { ...(affinity ?? {}) };
  const nodeAffinity = isObject(out.nodeAffinity) ? { ...out.nodeAffinity } : {};
  const required = isObject(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
    ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    : {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { ...required, nodeSelectorTerms: terms };
  out.nodeAffinity = nodeAffinity;
  return out;
}

/** IsPodUpdated: the pod carries the current revision's hash, or the current template generation. */
export function isPodUpdated(pod: WorkloadObject, hash: string, generation: string | undefined): boolean {
  const labels = labelsOf(pod);
  return (
    (hash !== '' && labels[REVISION_HASH_LABEL] === hash) ||
    (generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation)
  );
}

/** podByCreationTimestampAndPhase: bound pods first, then oldest first, then by name. */
export function byBoundThenCreation(a: WorkloadObject, b: WorkloadObject): number {
  const boundA = typeof a.spec.nodeName === 'string' && a.spec.nodeName !== '';
  const boundB = typeof b.spec.nodeName === 'string' && b.spec.nodeName !== '';
  if (boundA !== boundB) return boundA ? -1 : 1;
  return byCreation(a, b);
}
