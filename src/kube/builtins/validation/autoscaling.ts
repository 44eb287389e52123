// Validation of autoscaling HorizontalPodAutoscaler, on the stored v2 form whichever version the
// request used (kube validates the internal type): pkg/apis/autoscaling/validation/validation.go.
// Covered: the replica bounds, scaleTargetRef, each metric's source type and the Resource and
// ContainerResource sources' targets; other sources are checked for presence only.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { isValidPathSegmentName } from '../../../apimachinery/validation/names.ts';
import { num, obj, objects, str } from '../json.ts';

const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
/** Each source type and the field that must carry it. */
const SOURCE_FIELDS: Record<string, string> = {
  ContainerResource: 'containerResource',
  External: 'external',
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
};

function validateReference(ref: JsonObject | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const v = str(ref, key) ?? '';
    if (!v) errs.push(fieldRequired(`${path}.${key}`));
    else for (const m of isValidPathSegmentName(v)) errs.push(fieldInvalid(`${path}.${key}`, v, m));
  }
  return errs;
}

function validateTarget(target: JsonObject | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(target, 'type') ?? '';
  if (!type) errs.push(fieldRequired(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type))
    errs.push(fieldInvalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  const utilization = num(target, 'averageUtilization');
  if (utilization !== undefined && utilization < 1)
    errs.push(fieldInvalid(`${path}.averageUtilization`, utilization, 'must be greater than 0'));
  return errs;
}

function validateResourceSource(src: JsonObject, path: string, container: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(src, 'name')) errs.push(fieldRequired(`${path}.name`, 'must specify a resource name'));
  if (container && !str(src, 'container')) errs.push(fieldRequired(`${path}.container`, 'must specify a container'));
  const target = obj(src, 'target');
  errs.push(...validateTarget(target, `${path}.target`));
  const utilization = target?.averageUtilization ?? undefined;
  const value = target?.averageValue ?? undefined;
  if (utilization === undefined && value === undefined)
    errs.push(
      fieldRequired(`${path}.target.averageUtilization`, 'must set either a target raw value or a target utilization'),
    );
  if (utilization !== undefined && value !== undefined)
    errs.push(
      fieldForbidden(`${path}.target.averageValue`, 'may not set both a target raw value and a target utilization'),
    );
  return errs;
}

function validateMetric(metric: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(metric, 'type') ?? '';
  if (!type) errs.push(fieldRequired(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(fieldNotSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  const present = Object.values(SOURCE_FIELDS).filter((f) => obj(metric, f));
  const expected = SOURCE_FIELDS[type] ?? type.toLowerCase();
  if (present.length >= 1) {
    const first = present[0];
    const src = obj(metric, first)!;
    if (first === 'resource' || first === 'containerResource')
      errs.push(...validateResourceSource(src, `${path}.${first}`, first === 'containerResource'));
  }
  if (!present.includes(expected))
    errs.push(fieldRequired(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (present.length > 1) {
    for (const f of present.filter((p) => p !== expected).sort())
      errs.push(fieldForbidden(`${path}.${f}`, 'must populate the given metric source only'));
  }
  return errs;
}

export function validateHorizontalPodAutoscaler(o: JsonObject): FieldError[] {
  const spec = obj(o, 'spec') ?? {};
  const errs: FieldError[] = [];
  const min = num(spec, 'minReplicas');
  const max = num(spec, 'maxReplicas') ?? 0;
  if (min !== undefined && min < 1)
    errs.push(fieldInvalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min !== undefined && max < min)
    errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateReference(obj(spec, 'scaleTargetRef'), 'spec.scaleTargetRef'));
  objects(spec, 'metrics').forEach((m, i) => errs.push(...validateMetric(m, `spec.metrics[${i}]`)));
  return errs;
}
