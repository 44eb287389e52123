// Unknown fields of built-in kinds, for fieldValidation=Strict/Warn: the fields a body has that
// the kind's hand-written model does not. Only closed objects report fields; open objects and
// kinds without a model report nothing, so a field the models do not describe is never refused.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { BUILTIN_MODELS, builtinModel } from './index.ts';
import { asSchema, isOpen, refName, type Schema } from './schema.ts';

/**
 * The paths of unknown fields in `obj` (a built-in kind of `group`), in kube's strict-decoding
 * form: `spec.containers[0].imagee`. Empty for custom resources (their CRD schema prunes).
 */
export function unknownFields(group: string, kind: string, obj: JsonObject, version = 'v1'): string[] {
  const out: string[] = [];
  walk(builtinModel(group, version, kind).schema, obj, '', out, 0, false);
  return out;
}

/**
 * As `unknownFields`, and removes them from `obj`: kube-apiserver never stores the fields its
 * decoder does not know, whatever fieldValidation says (it only decides whether they are an
 * error, a warning or silent). Fits ResourceStrategy.prune.
 */
export function pruneUnknownFields(group: string, kind: string, obj: JsonObject, version = 'v1'): string[] {
  const out: string[] = [];
  walk(builtinModel(group, version, kind).schema, obj, '', out, 0, true);
  return out;
}

function resolve(s: Schema): Schema | undefined {
  for (let hops = 0; hops < 16; hops++) {
    const name = refName(s);
    if (name === undefined) return s;
    const next = BUILTIN_MODELS.get(name);
    if (!next) return undefined;
    s = next;
  }
  return undefined;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function walk(
  schemaIn: Schema,
  value: JsonValue | undefined,
  path: string,
  out: string[],
  depth: number,
  remove: boolean,
): void {
  const schema = resolve(schemaIn);
  if (!schema || value === null || value === undefined || typeof value !== 'object' || depth > 64) return;
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (items) value.forEach((v, i) => walk(items, v, `${path}[${i}]`, out, depth + 1, remove));
    return;
  }
  const props = asSchema(schema.properties);
  const additional = asSchema(schema.additionalProperties);
  for (const [k, v] of Object.entries(value)) {
    const known = props && Object.hasOwn(props, k) ? asSchema(props[k]) : additional;
    if (known) {
      walk(known, v, join(path, k), out, depth + 1, remove);
    } else if (props && !isOpen(schema)) {
      out.push(join(path, k));
      if (remove) delete (value as JsonObject)[k];
    }
  }
}
