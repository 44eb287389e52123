// Validation ratcheting on update (kube's CRDValidationRatcheting, on by default since 1.30): a
// schema error is ignored when the value it is about did not change since the stored object, so a
// tightened schema does not block updates that leave old data alone. Values correlate with the
// old object by field name and map key; list items only through x-kubernetes-list-type: map keys.
import type { ErrorObject } from 'ajv';
import { deepEqual, isObject } from '../../../apimachinery/json/index.ts';
import { fieldSchema } from './structural.ts';
import type { Structural } from './structural.ts';

function segments(pointer: string): string[] {
  return pointer
    ? pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    : [];
}

/** Whether the value at `pointer` (or one of its ancestors) is unchanged from the old object. */
function unchanged(pointer: string, value: unknown, old: unknown, s: Structural | undefined): boolean {
  let cur = value;
  let prev = old;
  let schema = s;
  if (deepEqual(cur, prev)) return true;
  for (const seg of segments(pointer)) {
    if (Array.isArray(cur)) {
      const item = cur[Number(seg)];
      const keys = schema?.xListType === 'map' ? (schema.xListMapKeys ?? []) : undefined;
      if (!keys || !Array.isArray(prev) || !isObject(item)) return false;
      prev = prev.find((o) => isObject(o) && keys.every((k) => deepEqual(o[k], item[k])));
      cur = item;
      schema = schema?.items;
    } else {
      if (!isObject(cur) || !isObject(prev) || !(seg in prev)) return false;
      cur = cur[seg];
      prev = prev[seg];
      schema = fieldSchema(schema, seg);
    }
    if (prev === undefined) return false;
    if (deepEqual(cur, prev)) return true;
  }
  return false;
}

export function ratchet(
  errors: readonly ErrorObject[],
  value: unknown,
  old: unknown,
  s: Structural | undefined,
): ErrorObject[] {
  return errors.filter((e) => !unchanged(e.instancePath, value, old, s));
}
