// kube's ValidateListSetsAndMaps: lists marked `x-kubernetes-list-type: set` hold unique items,
// `map` lists unique keys (`x-kubernetes-list-map-keys`). Reported as FieldValueDuplicate at the
// first repeat, as kube does.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { fieldDuplicate, fieldInvalid } from '../../../apimachinery/validation/field-errors.ts';
import { goJson } from '../../../apimachinery/strings/go-format.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import type { Structural } from './structural.ts';

export function validateListSetsAndMaps(path: Path, s: Structural | undefined, obj: unknown): FieldError[] {
  if (!s || !isObject(obj)) return [];
  const errs: FieldError[] = [];
  const ap = s.additionalProperties?.schema;
  if (ap) for (const [k, v] of Object.entries(obj)) errs.push(...visit(key(path, k), ap, v));
  if (s.properties) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = s.properties.get(k);
      if (sub) errs.push(...visit(child(path, k), sub, v));
    }
  }
  return errs;
}

function visit(path: string, s: Structural, v: unknown): FieldError[] {
  if (Array.isArray(v)) return visitArray(path, s, v);
  if (isObject(v)) return validateListSetsAndMaps(path, s, v);
  return [];
}

function visitArray(path: string, s: Structural, list: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  if (s.xListType === 'set') {
    for (const i of firstRepeats(list)) errs.push(fieldDuplicate(index(path, i), list[i]));
  } else if (s.xListType === 'map') {
    errs.push(...validateListMap(path, s, list));
  }
  if (s.items) list.forEach((x, i) => errs.push(...visit(index(path, i), s.items as Structural, x)));
  return errs;
}

/** Indices where a value appears for the second time (later repeats are not reported again). */
function firstRepeats(list: unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  list.forEach((x, i) => {
    const id =
      x === UNSPECIFIED
        ? '\u0000unspecified'
        : typeof x === 'object' && x !== null
          ? `o${goJson(x)}`
          : `s${typeof x}:${String(x)}`;
    const times = seen.get(id) ?? 0;
    if (times === 1) out.push(i);
    seen.set(id, times + 1);
  });
  return out;
}

const UNSPECIFIED = Symbol('unspecified');

function validateListMap(path: string, s: Structural, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x))
      return [fieldInvalid(index(path, i), x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s.xListMapKeys ?? [];
  if (keyFields.length === 1) {
    const [k] = keyFields;
    const keys = list.map((x) => (isObject(x) && Object.prototype.hasOwnProperty.call(x, k) ? x[k] : UNSPECIFIED));
    return firstRepeats(keys).map((i) =>
      fieldDuplicate(index(path, i), keys[i] === UNSPECIFIED ? {} : { [k]: keys[i] }),
    );
  }
  const keys = list.map((x) => {
    const entry: Record<string, unknown> = {};
    if (isObject(x)) for (const k of keyFields) if (Object.prototype.hasOwnProperty.call(x, k)) entry[k] = x[k];
    return entry;
  });
  return firstRepeats(keys).map((i) => fieldDuplicate(index(path, i), keys[i]));
}
