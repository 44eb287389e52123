// Dispatches a PATCH body to the engine for its content type.
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import type { SchemaInfo } from '../patch/schema-info.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

export function applyPatch(
  type: Exclude<PatchType, 'apply'>,
  current: JsonObject,
  body: unknown,
  schema: SchemaInfo,
): JsonObject {
  switch (type) {
    case 'json':
      return applyJsonPatch(current, body) as JsonObject;
    case 'merge':
      return applyMergePatch(current, body as JsonValue) as JsonObject;
    case 'strategic':
      return applyStrategicMergePatch(current, body as JsonObject, schema);
  }
}
