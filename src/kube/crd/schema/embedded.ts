// Validation of resources embedded in a custom resource (`x-kubernetes-embedded-resource`): they
// need an apiVersion and a kind, kube's objectmeta.Validate. The root's type meta is checked by
// the registry, not here.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { fieldInvalid, fieldRequired } from '../../../apimachinery/validation/field-errors.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { groupVersionError } from '../names.ts';
import type { Structural } from './structural.ts';
import { isDNS1035Label } from '../../../apimachinery/validation/names.ts';

export function validateEmbeddedResources(
  path: Path,
  x: unknown,
  s: Structural | undefined,
  isRoot = true,
): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (isObject(x)) {
    if (s.xEmbeddedResource && !isRoot) errs.push(...validateTypeMeta(path, x));
    for (const [k, v] of Object.entries(x)) {
      const prop = s.properties?.get(k);
      if (prop) errs.push(...validateEmbeddedResources(child(path, k), v, prop, false));
      else if (s.additionalProperties)
        errs.push(...validateEmbeddedResources(key(path, k), v, s.additionalProperties.schema, false));
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => errs.push(...validateEmbeddedResources(index(path, i), v, s.items, false)));
  }
  return errs;
}

function validateTypeMeta(path: Path, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in x)) errs.push(fieldRequired(child(path, 'apiVersion')));
  if (!('kind' in x)) errs.push(fieldRequired(child(path, 'kind')));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(fieldInvalid(child(path, k), v, 'must be a string'));
      else if (v === '') errs.push(fieldInvalid(child(path, k), v, 'must not be empty'));
      else {
        const gvErr = groupVersionError(v);
        if (gvErr) errs.push(fieldInvalid(child(path, k), v, gvErr));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(fieldInvalid(child(path, k), v, 'must be a string'));
      else if (v === '') errs.push(fieldInvalid(child(path, k), v, 'must not be empty'));
      else {
        const nameErrs = isDNS1035Label(v.toLowerCase());
        if (nameErrs.length)
          errs.push(
            fieldInvalid(child(path, k), v, `may have mixed case, but should otherwise match: ${nameErrs.join(',')}`),
          );
      }
    }
  }
  return errs;
}
