// Which nodes a DaemonSet runs on (kube's pkg/controller/daemon NodeShouldRunDaemonPod and
// daemonset_util.go): the daemon pod as it would be on the node must fit the template's nodeName,
// nodeSelector and required node affinity, and tolerate the node's NoSchedule and NoExecute
// taints, with the tolerations every daemon pod gets. Readiness and capacity are not looked at:
// the scheduler and the kubelet deal with those.
import { isObject } from '../../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import {
  fitsNodeAffinity,
  nodeAffinityOf,
  tolerates,
  type Taint,
  type Toleration,
} from '../../scheduler/predicates.ts';
import { labelsOf, type WorkloadObject } from '../common.ts';

/** A Node as eligibility reads it. */
export interface DaemonNode {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
}

export function daemonNodeFrom(node: WorkloadObject): DaemonNode {
  const taints = Array.isArray(node.spec.taints) ? node.spec.taints : [];
  return {
    name: node.metadata.name!,
    labels: labelsOf(node),
    taints: taints.filter((t): t is Taint & JsonObject => isObject(t) && typeof t.key === 'string'),
  };
}

const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });

/**
 * AddOrUpdateDaemonPodTolerations: daemon pods survive the node lifecycle's condition taints
 * (not-ready and unreachable NoExecute without tolerationSeconds, the pressure and unschedulable
 * NoSchedule ones) and, with hostNetwork, a node whose network is not set up yet.
 */
export function withDaemonTolerations(podSpec: JsonObject): JsonObject {
  const wanted = [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (podSpec.hostNetwork === true) wanted.push(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  const tolerations = (Array.isArray(podSpec.tolerations) ? [...podSpec.tolerations] : []) as JsonObject[];
  for (const w of wanted) {
    // AddOrUpdateTolerationInPodSpec: one with the same key, operator, value and effect is replaced.
    const i = tolerations.findIndex(
      (t) =>
        isObject(t) &&
        t.key === w.key &&
        (t.operator ?? 'Equal') === w.operator &&
        (t.value ?? '') === '' &&
        (t.effect ?? '') === w.effect,
    );
    if (i >= 0) tolerations[i] = { ...w };
    else tolerations.push({ ...w });
  }
  return { ...podSpec, tolerations };
}

export interface Eligibility {
  /** A daemon pod should be made on the node. */
  shouldRun: boolean;
  /** A daemon pod already there may stay (no untolerated NoExecute taint). */
  shouldContinueRunning: boolean;
}

function untolerated(taints: Taint[], tolerations: Toleration[], effects: string[]): boolean {
  return taints.some((taint) => effects.includes(taint.effect) && !tolerations.some((t) => tolerates(t, taint)));
}

/** NodeShouldRunDaemonPod. */
export function nodeShouldRunDaemonPod(ds: WorkloadObject, node: DaemonNode): Eligibility {
  const template = isObject(ds.spec.template) ? ds.spec.template : {};
  const podSpec = withDaemonTolerations(isObject(template.spec) ? template.spec : {});
  const never = { shouldRun: false, shouldContinueRunning: false };
  const nodeName = typeof podSpec.nodeName === 'string' ? podSpec.nodeName : '';
  if (nodeName !== '' && nodeName !== node.name) return never;
  if (!fitsNodeAffinity(nodeAffinityOf(podSpec), node)) return never;
  const tolerations = (podSpec.tolerations as JsonObject[]).filter(isObject) as Toleration[];
  if (untolerated(node.taints, tolerations, ['NoSchedule', 'NoExecute']))
    return { shouldRun: false, shouldContinueRunning: !untolerated(node.taints, tolerations, ['NoExecute']) };
  return { shouldRun: true, shouldContinueRunning: true };
}

/**
 * GetTargetNodeName: the node a daemon pod is for, its nodeName once bound, before that the single
 * value of its `metadata.name In` node affinity field; undefined when it names none.
 */
export function targetNodeName(pod: WorkloadObject): string | undefined {
  if (typeof pod.spec.nodeName === 'string' && pod.spec.nodeName !== '') return pod.spec.nodeName;
  for (const term of nodeAffinityOf(pod.spec).requiredTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key !== 'metadata.name' || f.operator !== 'In') continue;
      return f.values?.length === 1 ? f.values[0] : undefined;
    }
  }
  return undefined;
}
