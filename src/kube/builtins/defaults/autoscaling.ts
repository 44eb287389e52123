// Defaults of autoscaling/v2 HorizontalPodAutoscaler (pkg/apis/autoscaling/v2/defaults.go), run on
// the stored v2 form whichever version the request used: minReplicas 1, a CPU utilization target
// of 80% when no metric is given (autoscaling.DefaultCPUUtilization), and every unset field of a
// given `behavior` filled from the default scale-up and scale-down rules.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { ensureObj, isNil, obj, setIfNil } from '../json.ts';

const DEFAULT_CPU_UTILIZATION = 80;

function scaleUpRules(): JsonObject {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownRules(): JsonObject {
  return {
    stabilizationWindowSeconds: 300,
    selectPolicy: 'Max',
    policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
  };
}

function fillRules(behavior: JsonObject, key: string, defaults: JsonObject): void {
  const rules = obj(behavior, key);
  if (!rules) {
    behavior[key] = defaults;
    return;
  }
  for (const [k, v] of Object.entries(defaults)) if (v !== undefined) setIfNil(rules, k, v);
}

export function defaultHorizontalPodAutoscaler(o: JsonObject, op: 'create' | 'update'): void {
  const spec = ensureObj(o, 'spec');
  setIfNil(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } },
      },
    ];
  }
  const behavior = obj(spec, 'behavior');
  if (behavior) {
    fillRules(behavior, 'scaleUp', scaleUpRules());
    fillRules(behavior, 'scaleDown', scaleDownRules());
  }
  // The strategy's PrepareForCreate empties the status; currentMetrics and desiredReplicas have
  // no omitempty, so an untouched status reads back with both.
  if (op === 'create') o.status = {};
  const status = ensureObj(o, 'status');
  if (isNil(status, 'currentMetrics')) status.currentMetrics = null;
  setIfNil(status, 'desiredReplicas', 0);
}
