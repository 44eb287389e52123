// autoscaling/v1 ⇄ autoscaling/v2 HorizontalPodAutoscaler, as kube converts one stored object
// between its served versions (pkg/apis/autoscaling/v1/conversion.go). v1 only has a CPU
// utilization target: the first `Resource` cpu metric with a Utilization target becomes
// spec.targetCPUUtilizationPercentage (and its current value status.currentCPUUtilizationPercentage);
// everything v1 cannot express travels in the `autoscaling.alpha.kubernetes.io/*` annotations so
// that a v1 read-modify-write keeps it, and those annotations are dropped again on the way back.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { num, obj, objects } from '../json.ts';

export const HPA_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const HPA_CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const HPA_CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const HPA_BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [
  HPA_METRICS_ANNOTATION,
  HPA_CURRENT_METRICS_ANNOTATION,
  HPA_CONDITIONS_ANNOTATION,
  HPA_BEHAVIOR_ANNOTATION,
];

function isCpuUtilization(metric: JsonObject, targetKey: 'target' | 'current'): number | undefined {
  if (metric.type !== 'Resource') return undefined;
  const resource = obj(metric, 'resource');
  if (resource?.name !== 'cpu') return undefined;
  const t = obj(resource, targetKey);
  if (targetKey === 'target' && t?.type !== 'Utilization') return undefined;
  return num(t, 'averageUtilization');
}

function cpuMetric(percent: number): JsonObject {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } } };
}

function parseList(annotations: JsonObject, key: string): JsonObject[] | undefined {
  const raw = annotations[key];
  if (typeof raw !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v.filter(isObject) : undefined;
  } catch {
    return undefined;
  }
}

function withoutRoundTrip(meta: JsonObject): JsonObject {
  const annotations = obj(meta, 'annotations');
  if (!annotations) return meta;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !ROUND_TRIP.includes(k)));
  const out: JsonObject = { ...meta, annotations: kept };
  if (Object.keys(kept).length === 0) delete out.annotations;
  return out;
}

/** The autoscaling/v1 form of a stored (v2) HorizontalPodAutoscaler. */
export function hpaV1FromV2(v2: JsonObject): JsonObject {
  const spec = obj(v2, 'spec') ?? {};
  const status = obj(v2, 'status');
  const metadata: JsonObject = { ...withoutRoundTrip(obj(v2, 'metadata') ?? {}) };
  const annotations: JsonObject = { ...(obj(metadata, 'annotations') ?? {}) };

  const v1Spec: JsonObject = {};
  if (spec.scaleTargetRef !== undefined) v1Spec.scaleTargetRef = spec.scaleTargetRef;
  if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  if (spec.maxReplicas !== undefined) v1Spec.maxReplicas = spec.maxReplicas;
  const metrics = objects(spec, 'metrics');
  const cpu = metrics.findIndex((m) => isCpuUtilization(m, 'target') !== undefined);
  if (cpu >= 0) v1Spec.targetCPUUtilizationPercentage = isCpuUtilization(metrics[cpu], 'target')!;
  const others = metrics.filter((_, i) => i !== cpu);
  if (others.length > 0) annotations[HPA_METRICS_ANNOTATION] = JSON.stringify(others);
  if (isObject(spec.behavior)) annotations[HPA_BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);

  const out: JsonObject = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: v1Spec };
  if (status) {
    const v1Status: JsonObject = {};
    if (status.observedGeneration !== undefined) v1Status.observedGeneration = status.observedGeneration;
    if (status.lastScaleTime !== undefined) v1Status.lastScaleTime = status.lastScaleTime;
    v1Status.currentReplicas = num(status, 'currentReplicas') ?? 0;
    v1Status.desiredReplicas = num(status, 'desiredReplicas') ?? 0;
    const current = objects(status, 'currentMetrics');
    for (const m of current) {
      const value = isCpuUtilization(m, 'current');
      if (value !== undefined) {
        v1Status.currentCPUUtilizationPercentage = value;
        break;
      }
    }
    if (current.length > 0) annotations[HPA_CURRENT_METRICS_ANNOTATION] = JSON.stringify(current);
    const conditions = objects(status, 'conditions');
    if (conditions.length > 0) annotations[HPA_CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
    out.status = v1Status;
  }
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return out;
}

/** The stored (v2) form of an autoscaling/v1 HorizontalPodAutoscaler. */
export function hpaV2FromV1(v1: JsonObject): JsonObject {
  const spec = obj(v1, 'spec') ?? {};
  const status = obj(v1, 'status');
  const annotations = obj(obj(v1, 'metadata'), 'annotations') ?? {};

  const v2Spec: JsonObject = {};
  if (spec.scaleTargetRef !== undefined) v2Spec.scaleTargetRef = spec.scaleTargetRef;
  if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  if (spec.maxReplicas !== undefined) v2Spec.maxReplicas = spec.maxReplicas;
  const metrics: JsonObject[] = [];
  const target = num(spec, 'targetCPUUtilizationPercentage');
  if (target !== undefined) metrics.push(cpuMetric(target));
  metrics.push(...(parseList(annotations, HPA_METRICS_ANNOTATION) ?? []));
  if (metrics.length > 0) v2Spec.metrics = metrics;
  const behavior = annotations[HPA_BEHAVIOR_ANNOTATION];
  if (typeof behavior === 'string') {
    try {
      const parsed: unknown = JSON.parse(behavior);
      if (isObject(parsed) && Object.keys(parsed).length > 0) v2Spec.behavior = parsed;
    } catch {
      // Only well-formed data moves from annotations to fields, as in kube.
    }
  }

  const out: JsonObject = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: withoutRoundTrip(obj(v1, 'metadata') ?? {}),
    spec: v2Spec,
  };
  if (status) {
    const v2Status: JsonObject = {};
    if (status.observedGeneration !== undefined) v2Status.observedGeneration = status.observedGeneration;
    if (status.lastScaleTime !== undefined) v2Status.lastScaleTime = status.lastScaleTime;
    if (num(status, 'currentReplicas')) v2Status.currentReplicas = status.currentReplicas;
    v2Status.desiredReplicas = num(status, 'desiredReplicas') ?? 0;
    const current = parseList(annotations, HPA_CURRENT_METRICS_ANNOTATION);
    const cpuNow = num(status, 'currentCPUUtilizationPercentage');
    // The annotation has more information than the CPU field; it wins when present.
    v2Status.currentMetrics = current
      ? current
      : cpuNow !== undefined
        ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpuNow } } }]
        : null;
    const conditions = parseList(annotations, HPA_CONDITIONS_ANNOTATION);
    if (conditions) v2Status.conditions = conditions;
    out.status = v2Status;
  }
  return out;
}
