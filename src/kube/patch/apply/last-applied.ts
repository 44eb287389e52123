// Moving an object from client-side to server-side apply, as kube does for the manager "kubectl"
// only (the name `kubectl apply --server-side` uses): fields the last-applied annotation still
// describes correctly do not conflict, and the annotation keeps tracking what was applied so that
// switching back to client-side apply does not delete fields.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import type { SchemaInfo } from '../schema-info.ts';
import type { FieldSet } from './fieldpath.ts';
import { cloneJson, isObject } from '../../../apimachinery/json/index.ts';
import { compareObjects } from './compare.ts';
import { fromObject } from './fieldpath.ts';
import { validateApplied } from './validate.ts';
import { goJson } from '../../../apimachinery/strings/go-format.ts';

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
export const upgradingManager = 'kubectl';

function annotation(obj: JsonObject): string | undefined {
  const meta = obj.metadata;
  const ann = isObject(meta) ? meta.annotations : undefined;
  const v = isObject(ann) ? ann[lastAppliedAnnotation] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Fields the annotation claims and the live object still holds with the same value: an apply by
 * "kubectl" may take these over without a conflict. Undefined when there is no usable annotation.
 */
export function allowedByLastApplied(live: JsonObject, apiVersion: string, schema: SchemaInfo): FieldSet | undefined {
  const text = annotation(live);
  if (text === undefined) return undefined;
  let last: JsonValue;
  try {
    last = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (!isObject(last) || last.apiVersion !== apiVersion) return undefined;
  if (validateApplied(last, schema).length > 0) return undefined;
  const cmp = compareObjects(last, live, schema);
  return fromObject(last, schema).difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
}

/**
 * After an apply by "kubectl", an object that carries the annotation gets it rewritten to the
 * applied configuration (minus the annotation itself), encoded as kube does: Go JSON, keys sorted,
 * with a trailing newline.
 */
export function syncLastApplied(obj: JsonObject, applied: JsonObject): JsonObject {
  if (annotation(obj) === undefined) return obj;
  const config = cloneJson(applied);
  const cm = config.metadata;
  if (isObject(cm) && isObject(cm.annotations)) delete cm.annotations[lastAppliedAnnotation];
  const meta = obj.metadata as JsonObject;
  return {
    ...obj,
    metadata: {
      ...meta,
      annotations: { ...(meta.annotations as JsonObject), [lastAppliedAnnotation]: `${goJson(config)}\n` },
    },
  };
}
