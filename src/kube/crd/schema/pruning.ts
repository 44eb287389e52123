// Pruning (kube's structural pruning plus its ObjectMeta coercion): fields the schema does not
// specify are dropped, except under `x-kubernetes-preserve-unknown-fields`; apiVersion, kind and
// metadata survive at the root and in embedded resources (`x-kubernetes-embedded-resource`), and
// their metadata is reduced to ObjectMeta's fields. Every dropped path is reported for
// `fieldValidation=Strict|Warn`.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { child, index, key } from '../../../apimachinery/validation/field-path.ts';
import type { Path } from '../../../apimachinery/validation/field-path.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { coerceObjectMeta } from './object-meta.ts';
import type { Structural } from './structural.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

export interface PruneOutcome {
  /** Dropped unknown fields, `spec.foo`, `metadata.bar`, `spec.list[0].x`, as kube reports them. */
  unknownFields: string[];
  /** Metadata fields of the wrong type (dropped); kube refuses such a write with 400. */
  invalidMetadata: string[];
}

/** Prunes a whole custom resource in place. */
export function pruneResource(obj: JsonObject, s: Structural | undefined): PruneOutcome {
  const outcome: PruneOutcome = { unknownFields: [], invalidMetadata: [] };
  if (obj.metadata !== undefined) {
    const meta = coerceObjectMeta(obj.metadata, 'metadata');
    outcome.unknownFields.push(...meta.unknown.sort());
    outcome.invalidMetadata.push(...meta.invalid);
    if (meta.meta) obj.metadata = meta.meta;
  }
  const root: Structural = s ? { ...s, xEmbeddedResource: true } : rootless();
  const pruned: string[] = [];
  prune(obj, root, '', pruned);
  outcome.unknownFields.push(...pruned.sort());
  const coerced: string[] = [];
  coerceEmbedded(obj, root, null, true, coerced, outcome.invalidMetadata);
  outcome.unknownFields.push(...coerced.sort());
  return outcome;
}

/** Prunes a value against a schema node (no metadata handling); used to check that defaults are pruned. */
export function pruneValue(value: unknown, s: Structural | undefined, isResourceRoot: boolean): void {
  const root = isResourceRoot ? (s ? { ...s, xEmbeddedResource: true } : rootless()) : s;
  prune(value, root, '', []);
}

function rootless(): Structural {
  return {
    type: '',
    format: '',
    nullable: false,
    xPreserveUnknownFields: false,
    xEmbeddedResource: true,
    xIntOrString: false,
    raw: {},
  };
}

function join(parent: string, k: string): string {
  return parent ? `${parent}.${k}` : k;
}

function prune(x: unknown, s: Structural | undefined, path: string, out: string[]): void {
  if (s?.xPreserveUnknownFields) {
    skipPrune(x, s, path, out);
    return;
  }
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s?.xEmbeddedResource && META_FIELDS.has(k)) continue;
      const prop = s?.properties?.get(k);
      if (s && prop) prune(x[k], prop, join(path, k), out);
      else if (s?.additionalProperties) prune(x[k], s.additionalProperties.schema, join(path, k), out);
      else {
        // The root's apiVersion/kind/metadata are kept by kube's caller; anything else is reported.
        if (!META_FIELDS.has(k) || path !== '') out.push(join(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => prune(v, s?.items, `${path}[${i}]`, out));
  }
}

function skipPrune(x: unknown, s: Structural, path: string, out: string[]): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
      const prop = s.properties?.get(k);
      if (prop) prune(x[k], prop, join(path, k), out);
      else if (s.additionalProperties) prune(x[k], s.additionalProperties.schema, join(path, k), out);
    }
  } else if (Array.isArray(x) && s.items) {
    x.forEach((v, i) => skipPrune(v, s.items as Structural, `${path}[${i}]`, out));
  }
}

/** objectmeta.Coerce: type-checks apiVersion/kind and round-trips metadata of embedded resources. */
function coerceEmbedded(
  x: unknown,
  s: Structural | undefined,
  path: Path,
  isRoot: boolean,
  unknown: string[],
  invalid: string[],
): void {
  if (!s) return;
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.xEmbeddedResource && !isRoot) {
        if ((k === 'apiVersion' || k === 'kind') && typeof x[k] !== 'string') {
          invalid.push(`${child(path, k)}: must be a string`);
          delete x[k];
          continue;
        }
        if (k === 'metadata') {
          const meta = coerceObjectMeta(x[k], child(path, 'metadata'));
          unknown.push(...meta.unknown);
          invalid.push(...meta.invalid);
          if (meta.meta) x[k] = meta.meta;
        }
      }
      const prop = s.properties?.get(k);
      if (prop) coerceEmbedded(x[k], prop, child(path, k), false, unknown, invalid);
      else if (s.additionalProperties)
        coerceEmbedded(x[k], s.additionalProperties.schema, key(path, k), false, unknown, invalid);
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => coerceEmbedded(v, s.items, index(path, i), false, unknown, invalid));
  }
}
