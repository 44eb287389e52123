// The scale subresource's checks on a custom resource (kube's ValidateScaleSpec/Status): the
// replica counts must be int32-sized non-negative integers, the selector a string. Field paths are
// the JSON paths as written in the CRD, e.g. `.spec.replicas`, as kube reports them.
import type { FieldError } from '../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { fieldInvalid } from '../../apimachinery/validation/field-errors.ts';
import { goFloat, goNumber } from '../../apimachinery/strings/go-format.ts';
import { isObject } from '../../apimachinery/json/index.ts';

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Go's `%v` for a decoded JSON value, as unstructured's accessor errors print it. */
function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? goNumber(v) : goFloat(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

function goT(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** unstructured.NestedFieldNoCopy + a type check; returns the value or the accessor error text. */
function nested(obj: JsonObject, path: string, want: 'int64' | 'string'): { value?: unknown; error?: string } {
  const fields = path.replace(/^\./, '').split('.');
  let cur: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (cur === null || cur === undefined) return {};
    if (!isObject(cur)) {
      return {
        error: `.${fields.slice(0, i + 1).join('.')} accessor error: ${goV(cur)} is of the type ${goT(cur)}, expected map[string]interface{}`,
      };
    }
    if (!(fields[i] in cur)) return {};
    cur = cur[fields[i]];
  }
  const ok = want === 'int64' ? typeof cur === 'number' && Number.isInteger(cur) : typeof cur === 'string';
  if (!ok)
    return { error: `.${fields.join('.')} accessor error: ${goV(cur)} is of the type ${goT(cur)}, expected ${want}` };
  return { value: cur };
}

function replicas(obj: JsonObject, path: string): FieldError[] {
  const r = nested(obj, path, 'int64');
  if (r.error) return [fieldInvalid(path, 0, r.error)];
  const n = typeof r.value === 'number' ? r.value : 0;
  if (n < 0) return [fieldInvalid(path, n, 'should be a non-negative integer')];
  if (n > 2147483647) return [fieldInvalid(path, n, 'should be less than or equal to 2147483647')];
  return [];
}

export function validateScaleSpec(obj: JsonObject, scale: ScaleSpec): FieldError[] {
  return replicas(obj, scale.specReplicasPath);
}

export function validateScaleStatus(obj: JsonObject, scale: ScaleSpec): FieldError[] {
  const errs = replicas(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath !== undefined) {
    const r = nested(obj, scale.labelSelectorPath, 'string');
    if (r.error) errs.push(fieldInvalid(scale.labelSelectorPath, '', r.error));
  }
  return errs;
}
