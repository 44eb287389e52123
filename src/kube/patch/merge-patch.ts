// JSON merge patch (RFC 7386, `application/merge-patch+json`) as kube-apiserver applies it, through
// gopkg.in/evanphx/json-patch.v4's MergePatch. Differences from the RFC that clients can observe:
// - a body that is null, a string, a number or a boolean is a 400 "Invalid JSON Patch";
// - a body that is an array becomes the result (with null elements dropped), which the caller's
//   decoding then rejects, as kube's does;
// - values taken from the patch lose their nulls everywhere, inside arrays too: `["a", null]`
//   becomes `["a"]`. The exception, also v4's, is a non-object value replacing an object, which
//   is taken as sent.
// The document and the patch passed in are never modified.
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import { deleteKey, getKey, setKey } from './json-tree.ts';
import { malformedPatch } from './patch-errors.ts';
import { cloneJson, isObject, presentKeys } from '../../apimachinery/json/index.ts';

/** Applies `patch` (the decoded request body) to a copy of `doc` and returns the copy. */
export function applyMergePatch(doc: JsonValue, patch: unknown): JsonValue {
  if (Array.isArray(patch)) return withoutNulls(patch as JsonValue[]);
  if (!isObject(patch)) throw malformedPatch('Invalid JSON Patch');
  if (!isObject(doc)) return withoutNulls(patch);
  return mergeInto(cloneJson(doc), patch);
}

function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const k of presentKeys(patch)) {
    const v = patch[k] as JsonValue;
    if (v === null) deleteKey(target, k);
    else setKey(target, k, mergeValue(getKey(target, k), v));
  }
  return target;
}

function mergeValue(current: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(current)) return withoutNulls(patch);
  if (!isObject(patch)) return cloneJson(patch);
  return mergeInto(current, patch);
}

function withoutNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(withoutNulls);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of presentKeys(v)) if (v[k] !== null) setKey(out, k, withoutNulls(v[k] as JsonValue));
  return out;
}
