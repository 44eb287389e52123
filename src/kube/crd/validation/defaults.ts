// kube's ValidateDefaults: every `default` in a CRD schema must survive pruning unchanged, carry
// valid type meta where it is an embedded resource, and validate against its own schema node.
// Defaults under additionalProperties are not followed, as upstream.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import { child, key } from '../../../apimachinery/validation/field-path.ts';
import { fieldInvalid } from '../../../apimachinery/validation/field-errors.ts';
import { cloneJson, deepEqual, isObject } from '../../../apimachinery/json/index.ts';
import { coerceObjectMeta } from '../schema/object-meta.ts';
import { pruneValue } from '../schema/pruning.ts';
import { validateValue } from '../schema/validator.ts';
import { validateEmbeddedResources } from '../schema/embedded.ts';
import type { Structural } from '../schema/structural.ts';

const TYPE_META = new Set(['metadata', 'apiVersion', 'kind']);

export function validateDefaults(path: string, s: Structural, requirePruned = true): FieldError[] {
  return visit(path, { ...s, xEmbeddedResource: true }, false, requirePruned);
}

function visit(path: string, s: Structural, insideMeta: boolean, requirePruned: boolean): FieldError[] {
  const inMeta = s.xEmbeddedResource ? false : insideMeta;
  const errs: FieldError[] = [];
  if (s.default !== undefined) {
    const at = child(path, 'default');
    if (inMeta) {
      // kube checks such a default inside a synthetic surrounding object; its schema check is what remains.
      errs.push(...validateValue(s.raw, s.default, at));
    } else {
      if (requirePruned) {
        const pruned = cloneJson(s.default);
        pruneValue(pruned, s, s.xEmbeddedResource);
        if (!deepEqual(pruned, s.default)) errs.push(fieldInvalid(at, s.default, 'must not have unknown fields'));
      }
      const coerceError = coerceDefault(at, s.default, s, s.xEmbeddedResource);
      if (coerceError) errs.push(coerceError);
      else {
        const embedded = validateEmbeddedResources(at, s.default, s, !s.xEmbeddedResource);
        errs.push(...(embedded.length ? embedded : validateValue(s.raw, s.default, at)));
      }
    }
  }
  if (s.items) errs.push(...visit(child(path, 'items'), s.items, inMeta, requirePruned));
  for (const [k, sub] of s.properties ?? []) {
    errs.push(
      ...visit(
        key(child(path, 'properties'), k),
        sub,
        inMeta || (s.xEmbeddedResource && TYPE_META.has(k)),
        requirePruned,
      ),
    );
  }
  return errs;
}

/** objectmeta.Coerce without dropping: the first type-meta or metadata problem in a default value. */
function coerceDefault(
  path: string,
  x: unknown,
  s: Structural | undefined,
  isResource: boolean,
): FieldError | undefined {
  if (!s) return undefined;
  if (isObject(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (s.xEmbeddedResource || isResource) {
        if ((k === 'apiVersion' || k === 'kind') && typeof v !== 'string')
          return fieldInvalid(child(path, k), v, 'must be a string');
        if (k === 'metadata') {
          const meta = coerceObjectMeta(v, child(path, k));
          if (meta.invalid.length) return fieldInvalid(child(path, k), v, meta.invalid[0]);
        }
      }
      const prop = s.properties?.get(k);
      const sub = prop ?? s.additionalProperties?.schema;
      const err = coerceDefault(prop ? child(path, k) : key(path, k), v, sub, false);
      if (err) return err;
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const err = coerceDefault(`${path}[${i}]`, x[i], s.items, false);
      if (err) return err;
    }
  }
  return undefined;
}
