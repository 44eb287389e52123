// Path elements: how one step into an object is named in a field path. Their order, their
// fieldsV1 spelling (`f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`) and their human spelling
// (`.name`, `[name="x"]`, `[="a"]`, `[0]`) follow structured-merge-diff, since clients read both.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';

import { goJson } from '../../../apimachinery/strings/go-format.ts';
import { compareStrings } from '../../../apimachinery/strings/compare.ts';
import { isObject, presentKeys } from '../../../apimachinery/json/index.ts';

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly key: ReadonlyArray<readonly [string, JsonValue]> }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export const field = (name: string): PathElement => ({ kind: 'field', name });

const rank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** structured-merge-diff's order, which is also the order of keys in fieldsV1. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return rank[a.kind] - rank[b.kind];
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareFieldLists(a.key, (b as typeof a).key);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return Math.sign(a.index - (b as typeof a).index);
  }
}

function compareFieldLists(a: PathElementKey, b: PathElementKey): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const c = compareStrings(a[i][0], b[i][0]) || compareValues(a[i][1], b[i][1]);
    if (c !== 0) return c;
  }
  return 0;
}
type PathElementKey = ReadonlyArray<readonly [string, JsonValue]>;

const typeRank = (v: JsonValue): number =>
  typeof v === 'number'
    ? 0
    : typeof v === 'string'
      ? 1
      : typeof v === 'boolean'
        ? 2
        : Array.isArray(v)
          ? 3
          : v === null
            ? 5
            : 4;

/** Go's value.Compare: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number') return Math.sign(a - (b as number));
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  if (Array.isArray(a)) {
    const bl = b as JsonValue[];
    for (let i = 0; i < Math.max(a.length, bl.length); i++) {
      if (i >= a.length) return -1;
      if (i >= bl.length) return 1;
      const c = compareValues(a[i], bl[i]);
      if (c !== 0) return c;
    }
    return 0;
  }
  if (isObject(a)) {
    const bo = b as JsonObject;
    const fa = presentKeys(a)
      .sort(compareStrings)
      .map((k): [string, JsonValue] => [k, a[k] as JsonValue]);
    const fb = presentKeys(bo)
      .sort(compareStrings)
      .map((k): [string, JsonValue] => [k, bo[k] as JsonValue]);
    return compareFieldLists(fa, fb);
  }
  return 0;
}

/** The fieldsV1 key of one path element. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.key.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

export class FieldsV1Error extends Error {}

/** Parses a fieldsV1 key; undefined for a prefix this version does not know (kube drops those). */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2 || s[1] !== ':') throw new FieldsV1Error(`invalid path element ${JSON.stringify(s)}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { kind: 'field', name: body };
    case 'v':
      return { kind: 'value', value: parseJson(body) };
    case 'k': {
      const obj = parseJson(body);
      if (!isObject(obj)) throw new FieldsV1Error(`invalid key path element ${JSON.stringify(s)}`);
      const key = presentKeys(obj).map((k): [string, JsonValue] => [k, obj[k] as JsonValue]);
      return { kind: 'key', key: key.sort((a, b) => compareStrings(a[0], b[0])) };
    }
    case 'i':
      if (!/^[+-]?\d+$/.test(body)) throw new FieldsV1Error(`invalid index path element ${JSON.stringify(s)}`);
      return { kind: 'index', index: Number(body) };
    default:
      return undefined;
  }
}

function parseJson(s: string): JsonValue {
  try {
    return JSON.parse(s) as JsonValue;
  } catch {
    throw new FieldsV1Error(`invalid JSON in path element ${JSON.stringify(s)}`);
  }
}

function valueToString(v: JsonValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  if (isObject(v))
    return presentKeys(v)
      .map((k) => `${k}=${valueToString(v[k] as JsonValue)}`)
      .join('');
  return String(v);
}

/** The human form kube prints in conflicts: `.spec.containers[name="x"].image`, `.finalizers[="a"]`. */
export function pathToString(path: Path): string {
  return path
    .map((pe) => {
      switch (pe.kind) {
        case 'field':
          return `.${pe.name}`;
        case 'key':
          return `[${pe.key.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
        case 'value':
          return `[=${valueToString(pe.value)}]`;
        case 'index':
          return `[${pe.index}]`;
      }
    })
    .join('');
}
