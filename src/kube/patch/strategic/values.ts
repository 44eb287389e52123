// Strategic-merge-patch vocabulary and the clean-up of values that leave the patch untouched by
// merging. kube-apiserver decodes the merged map into a typed object, which silently drops
// directive keys and null members; our store keeps what we return, so that decoding step is
// reproduced here. Errors keep k8s.io/apimachinery's wording.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import type { StatusError } from '../../../apimachinery/errors/index.ts';
import { goTypeName, goValue } from '../go-text.ts';
import { setKey } from '../json-tree.ts';
import { malformedPatch, patchNotApplicable } from '../patch-errors.ts';
import { isObject, hasKey, presentKeys } from '../../../apimachinery/json/index.ts';

export const PATCH_DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const SET_ELEMENT_ORDER = '$setElementOrder';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

function isDirectiveKey(key: string): boolean {
  return (
    key === PATCH_DIRECTIVE ||
    key === RETAIN_KEYS ||
    key.startsWith(SET_ELEMENT_ORDER) ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
}

/**
 * A patch value stored where the original had nothing to merge it with (apimachinery's
 * discardNullValuesFromPatch + removeDirectives): null members go, and so does any map carrying
 * `$patch`, together with its key or list slot. Undefined means "store nothing".
 */
export function fromPatch(v: JsonValue): JsonValue | undefined {
  if (Array.isArray(v)) return v.map(fromPatch).filter((x): x is JsonValue => x !== undefined);
  if (!isObject(v)) return v;
  if (hasKey(v, PATCH_DIRECTIVE)) return undefined;
  const out: JsonObject = {};
  for (const k of presentKeys(v)) {
    const member = v[k] as JsonValue;
    if (member === null || isDirectiveKey(k)) continue;
    const kept = fromPatch(member);
    if (kept !== undefined) setKey(out, k, kept);
  }
  return out;
}

/** A patch value kube stores verbatim (a replaced list or map, an appended list element): only
 * the typed decoding applies, dropping null members and directive keys. */
export function asDecoded(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(asDecoded);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of presentKeys(v)) {
    const member = v[k] as JsonValue;
    if (member !== null && !isDirectiveKey(k)) setKey(out, k, asDecoded(member));
  }
  return out;
}

/** The key a parallel-list directive names: `$setElementOrder/containers` → `containers`. */
export function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw malformedPatch(
      prefix === SET_ELEMENT_ORDER
        ? 'invalid patch format of setElementOrder list'
        : 'invalid patch format of primitive list',
    );
  }
  return key.slice(slash + 1);
}

/** Every element of the lists has the same Go type; that type ('map[string]interface {}' etc.). */
export function elementType(...lists: JsonValue[][]): string | undefined {
  let type: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goTypeName(v);
      if (type === undefined) {
        if (Array.isArray(v)) throw listsOfLists();
        type = t;
      } else if (t !== type) {
        throw malformedPatch(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  return type;
}

export const MAP_TYPE = 'map[string]interface {}';

// The one merge error kube reports as its generic 422 (interpretStrategicMergePatchError).
function listsOfLists(): StatusError {
  return patchNotApplicable('lists of lists are not supported');
}

export function noMergeKey(item: JsonValue, mergeKey: string): StatusError {
  return malformedPatch(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
}

export function badArgType(expected: string, actual: JsonValue | undefined): StatusError {
  return malformedPatch(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

export function badPatchType(directive: JsonValue, m: JsonObject): StatusError {
  return malformedPatch(`unknown patch type: ${goValue(directive)} in map: ${goValue(m)}`);
}
