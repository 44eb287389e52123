// What a conversion webhook may change of an object's metadata: labels and annotations. Identity
// must match (validateConvertedObject); everything else is put back from the original
// (restoreObjectMeta) — both in staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
// conversion/webhook_converter.go. Each returns kube's error text, or undefined.
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { aggregateMessage } from '../../../apimachinery/selectors/label-requirement.ts';
import { validateAnnotations, validateLabels } from '../../../apimachinery/validation/index.ts';

function metaString(obj: JsonObject, field: string): string {
  const m = isObject(obj.metadata) ? obj.metadata : {};
  return typeof m[field] === 'string' ? m[field] : '';
}

export function validateConvertedObject(original: JsonObject, converted: JsonObject): string | undefined {
  const kind = (o: JsonObject) => (typeof o.kind === 'string' ? o.kind : '');
  if (kind(original) !== kind(converted)) return `must have the same kind: ${kind(original)} != ${kind(converted)}`;
  for (const [field, label] of [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ]) {
    const a = metaString(original, field);
    const b = metaString(converted, field);
    if (a !== b) return `must have the same ${label}: ${a} != ${b}`;
  }
  return undefined;
}

/** The name Go's %T gives a value decoded into unstructured content. */
function goType(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** Replaces `converted`'s metadata with a copy of `original`'s, keeping the webhook's labels and annotations. */
export function restoreObjectMeta(original: JsonObject, converted: JsonObject): string | undefined {
  if (!('metadata' in converted)) return 'missing metadata in converted object';
  const answered = converted.metadata;
  if (!isObject(answered)) return `invalid metadata of type ${goType(answered)} in converted object`;
  const restored: JsonObject = isObject(original.metadata) ? structuredClone(original.metadata) : {};
  for (const field of ['labels', 'annotations'] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    if (!isObject(value)) return `invalid metadata.${field} of type ${goType(value)} in converted object`;
    const before = isObject(restored[field]) ? restored[field] : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string')
        return `metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      // kube names the annotations' path `metadata.annotation`.
      const errs =
        field === 'labels'
          ? validateLabels(strings, 'metadata.labels')
          : validateAnnotations(strings, 'metadata.annotation');
      if (errs.length > 0) return aggregateMessage(errs.map((e) => `${e.field}: ${e.message}`));
    }
    restored[field] = value;
  }
  converted.metadata = restored;
  return undefined;
}
