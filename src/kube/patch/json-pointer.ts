// JSON-pointer resolution with the semantics of gopkg.in/evanphx/json-patch.v4, the library
// kube-apiserver applies JSON patches with. Where it departs from RFC 6901 we follow it, since
// clients only ever see its results:
// - the first segment of a path is skipped without being checked, so "a/b" addresses "/b";
// - a member whose value is null cannot be traversed;
// - array indices are parsed like strconv.Atoi: "+1" and "01" both mean 1.
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import { getKey } from './json-tree.ts';
import { isObject, unescapePointerToken } from '../../apimachinery/json/index.ts';

export type Container = JsonObject | JsonValue[];

/** Where an operation lands: the parent container, the final (decoded) key, and the resolved
 * tokens leading to the container, with array indices in canonical form. */
export interface Target {
  container: Container;
  key: string;
  parentTokens: string[];
}

export function splitPointer(path: string): string[] {
  return path.split('/').map(unescapePointerToken);
}

/** strconv.Atoi, limited to what a JSON array can be indexed with. */
export function parseIndex(token: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(token)) return undefined;
  const n = Number(token);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The member or element `key` of `container`; undefined when it is absent or out of range. */
export function childOf(container: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(container)) return getKey(container, key);
  const i = parseIndex(key);
  return i === undefined || i < 0 || i >= container.length ? undefined : container[i];
}

export function findTarget(doc: JsonValue, path: string): Target | undefined {
  const tokens = splitPointer(path);
  if (tokens.length < 2) return undefined;
  let container: JsonValue = doc;
  const parentTokens: string[] = [];
  for (const token of tokens.slice(1, -1)) {
    if (!Array.isArray(container) && !isObject(container)) return undefined;
    const next: JsonValue | undefined = childOf(container, token);
    if (next === undefined || next === null) return undefined;
    parentTokens.push(Array.isArray(container) ? String(parseIndex(token)) : token);
    container = next;
  }
  if (!Array.isArray(container) && !isObject(container)) return undefined;
  return { container, key: tokens[tokens.length - 1], parentTokens };
}
