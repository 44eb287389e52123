// The key order kube-apiserver writes objects in. Built-in kinds are Go structs encoded by
// encoding/json: struct fields in declaration order, map keys sorted. The Go field order of every
// served kind is generated from k8s.io/api's types.go files (go-structs.ts). Custom resources are
// unstructured maps, so every level is sorted. Objects are reordered once when stored, so reads
// stay a copy of the stored text.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { GO_STRUCTS } from './go-structs.ts';

/** How one node is reordered: a struct's fields, a map's values or a list's items. */
interface Plan {
  /** A struct: each JSON field's position in the Go struct, and what its value holds. */
  rank?: Map<string, number>;
  children?: Array<Plan | undefined>;
  mapValues?: Plan | undefined;
  sortedMap?: boolean;
  items?: Plan | undefined;
}

/** The Go struct behind a built-in kind, as the table names it: `core/v1.Pod`, `rbac/v1.Role`. */
export function goStructKey(group: string, version: string, kind: string): string {
  const pkg = group === '' ? 'core' : group.split('.')[0];
  return `${pkg}/${version}.${kind}`;
}

const plans = new Map<string, Plan>();

function structPlan(struct: string): Plan {
  const known = plans.get(struct);
  if (known) return known;
  const spec = GO_STRUCTS[struct];
  if (spec === undefined) throw new Error(`no Go field order for ${struct}`);
  // Recursive structs (JSONSchemaProps) find their own plan while it is filled.
  const rank = new Map<string, number>();
  const children: Array<Plan | undefined> = [];
  const plan: Plan = { rank, children };
  plans.set(struct, plan);
  const pkg = struct.slice(0, struct.lastIndexOf('.'));
  for (const field of spec.split(' ')) {
    const colon = field.indexOf(':');
    rank.set(colon < 0 ? field : field.slice(0, colon), children.length);
    children.push(colon < 0 ? undefined : typePlan(field.slice(colon + 1), pkg));
  }
  return plan;
}

/** A field type as go-structs.ts spells it: `T`, `[]T`, `{}T` or `{}`. */
function typePlan(type: string, pkg: string): Plan | undefined {
  if (type === '') return undefined;
  if (type.startsWith('[]')) {
    const items = typePlan(type.slice(2), pkg);
    return items && { items };
  }
  if (type.startsWith('{}')) return { sortedMap: true, mapValues: typePlan(type.slice(2), pkg) };
  return structPlan(type.includes('/') ? type : `${pkg}.${type}`);
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function apply(v: JsonValue, plan: Plan | undefined): JsonValue {
  if (!plan) return v;
  if (Array.isArray(v)) return plan.items ? v.map((item) => apply(item, plan.items)) : v;
  if (!isObject(v)) return v;
  if (plan.rank) return applyStruct(v, plan.rank, plan.children!);
  if (plan.sortedMap) {
    const out: JsonObject = {};
    for (const key of Object.keys(v).sort()) {
      const value = v[key];
      if (value !== undefined) out[key] = apply(value, plan.mapValues);
    }
    return out;
  }
  return v;
}

/**
 * A struct's fields in Go order. Fields the Go struct does not have (kube would have dropped
 * them) keep their written order after the known ones. Objects mostly arrive in order already
 * (they were read back from the store), so keys are only sorted when they are not.
 */
function applyStruct(v: JsonObject, rank: Map<string, number>, children: Array<Plan | undefined>): JsonObject {
  let last = -1;
  let unknown = children.length;
  for (const key in v) {
    const r = rank.get(key) ?? unknown++;
    if (r < last) return applySorted(v, rank, children);
    last = r;
  }
  const out: JsonObject = {};
  for (const key in v) {
    const value = v[key];
    if (value === undefined) continue;
    const r = rank.get(key);
    const child = r === undefined ? undefined : children[r];
    out[key] = child === undefined ? value : apply(value, child);
  }
  return out;
}

function applySorted(v: JsonObject, rank: Map<string, number>, children: Array<Plan | undefined>): JsonObject {
  const keys = Object.keys(v);
  const n = keys.length;
  const ranks = keys.map((key, i) => rank.get(key) ?? children.length + i);
  // Insertion sort of keys by rank: structs have few keys, and ranks are distinct.
  for (let i = 1; i < n; i++) {
    const r = ranks[i];
    const k = keys[i];
    let j = i - 1;
    for (; j >= 0 && ranks[j] > r; j--) {
      ranks[j + 1] = ranks[j];
      keys[j + 1] = keys[j];
    }
    ranks[j + 1] = r;
    keys[j + 1] = k;
  }
  const out: JsonObject = {};
  for (let i = 0; i < n; i++) {
    const value = v[keys[i]];
    if (value === undefined) continue;
    const child = ranks[i] < children.length ? children[ranks[i]] : undefined;
    out[keys[i]] = child === undefined ? value : apply(value, child);
  }
  return out;
}

/** Every object's keys sorted, at every level: encoding/json on map[string]interface{}. */
export function sortKeysDeep(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const key of Object.keys(v).sort()) {
    const value = v[key];
    if (value !== undefined) out[key] = sortKeysDeep(value);
  }
  return out;
}

/** Whether the Go field order of a built-in kind is known (every served kind's is). */
export function hasGoFieldOrder(group: string, version: string, kind: string): boolean {
  return GO_STRUCTS[goStructKey(group, version, kind)] !== undefined;
}

/** Reorders an object of a built-in kind into its Go struct order. */
export function builtinFieldOrder(group: string, version: string, kind: string): (obj: JsonObject) => JsonObject {
  const plan = structPlan(goStructKey(group, version, kind));
  return (obj) => apply(obj, plan) as JsonObject;
}

/**
 * A built-in object answered without being stored (reviews, token requests) in the Go order of
 * the kind it names; anything else (a Status, an unknown kind) as it is.
 */
export function inGoFieldOrder(obj: JsonObject): JsonObject {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return obj;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (!hasGoFieldOrder(group, version, kind)) return obj;
  return apply(obj, structPlan(goStructKey(group, version, kind))) as JsonObject;
}
