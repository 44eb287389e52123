// HorizontalPodAutoscalers, printed from the v2 form (the autoscaling/v1 view is converted first):
// kube's printHorizontalPodAutoscaler and formatHPAMetrics (pkg/printers/internalversion/printers.go).
import type { JsonObject, JsonValue } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, NAME } from '../columns.ts';
import { ageOf, asInt, asList, asObj, asStr, at, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

/** Targets shown before `+ N more...`. */
const MAX_SHOWN = 2;
const UNKNOWN = '<unknown>';

function quantity(v: JsonValue | undefined): string {
  return typeof v === 'number' ? String(v) : asStr(v);
}

function present(v: JsonValue | undefined): boolean {
  return v !== undefined && v !== null;
}

/** `current/target` for a source whose target is a Value or an AverageValue (then ` (avg)`). */
function valueTarget(target: JsonObject, current: JsonObject | undefined): string {
  if (present(target.averageValue)) {
    const now = current && present(current.averageValue) ? quantity(current.averageValue) : UNKNOWN;
    return `${now}/${quantity(target.averageValue)} (avg)`;
  }
  const now = current ? quantity(current.value) : UNKNOWN;
  return `${now}/${quantity(target.value)}`;
}

/** `name: current/target` for a resource source (utilization in percent, or an average value). */
function resourceTarget(source: JsonObject, status: JsonObject | undefined): string {
  const name = asStr(source.name);
  const target = asObj(source.target);
  const current = status ? asObj(status.current) : undefined;
  if (present(target.averageValue)) {
    const now = current ? quantity(current.averageValue) : UNKNOWN;
    return `${name}: ${now}/${quantity(target.averageValue)}`;
  }
  const now = current && present(current.averageUtilization) ? `${asInt(current.averageUtilization)}%` : UNKNOWN;
  const goal = present(target.averageUtilization) ? `${asInt(target.averageUtilization)}%` : '<auto>';
  return `${name}: ${now}/${goal}`;
}

function formatMetrics(specs: JsonObject[], statuses: JsonObject[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const st = statuses[i];
    const field = (key: string): JsonObject | undefined => (st && present(st[key]) ? asObj(st[key]) : undefined);
    switch (spec.type) {
      case 'External':
        return valueTarget(asObj(asObj(spec.external).target), asObj(field('external')?.current));
      case 'Pods': {
        const now = field('pods') ? quantity(asObj(field('pods')!.current).averageValue) : UNKNOWN;
        return `${now}/${quantity(asObj(asObj(spec.pods).target).averageValue)}`;
      }
      case 'Object': {
        const object = field('object');
        return valueTarget(asObj(asObj(spec.object).target), object ? asObj(object.current) : undefined);
      }
      case 'Resource':
        return resourceTarget(asObj(spec.resource), field('resource'));
      case 'ContainerResource':
        return resourceTarget(asObj(spec.containerResource), field('containerResource'));
      default:
        return '<unknown type>';
    }
  });
  const shown = list.slice(0, MAX_SHOWN).join(', ');
  return list.length > MAX_SHOWN ? `${shown} + ${list.length - MAX_SHOWN} more...` : shown;
}

export const horizontalPodAutoscalerPrinter: Printer = {
  columns: [
    NAME,
    col('Reference', 'string', 'scaleTargetRef points to the target resource to scale.'),
    col(
      'Targets',
      'string',
      'metrics contains the specifications for which to use to calculate the desired replica count.',
    ),
    col('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas.'),
    col('MaxPods', 'string', 'maxReplicas is the upper limit for the number of replicas.'),
    col('Replicas', 'string', 'currentReplicas is current number of replicas of pods managed by this autoscaler.'),
    AGE,
  ],
  cells(obj, now) {
    const ref = asObj(at(obj, 'spec', 'scaleTargetRef'));
    const min = at(obj, 'spec', 'minReplicas');
    return [
      nameOf(obj),
      `${asStr(ref.kind)}/${asStr(ref.name)}`,
      formatMetrics(asList(at(obj, 'spec', 'metrics')), asList(at(obj, 'status', 'currentMetrics'))),
      typeof min === 'number' ? String(Math.trunc(min)) : '<unset>',
      asInt(at(obj, 'spec', 'maxReplicas')),
      asInt(at(obj, 'status', 'currentReplicas')),
      ageOf(obj, now),
    ];
  },
};
