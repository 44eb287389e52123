// Small helpers for walking untyped JSON. CRDs and custom resources arrive as plain JSON, so every
// reader has to cope with fields of the wrong type; these helpers make "absent or wrong type" one case.
import { isObject } from '../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';

export function asObject(v: unknown): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function asArray(v: unknown): JsonValue[] | undefined {
  return Array.isArray(v) ? (v as JsonValue[]) : undefined;
}

export function asNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
