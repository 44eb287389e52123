// The key order kube-apiserver writes objects in. Built-in kinds are Go structs encoded by
// encoding/json: struct fields in declaration order (the models list their properties in that
// order), map keys sorted. Custom resources are unstructured maps, so every level is sorted.
// Objects are reordered once when stored, so reads stay a copy of the stored text.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { builtinModel, BUILTIN_MODELS } from './index.ts';
import { asSchema, refName, type Schema } from './schema.ts';

/** How one node is reordered: a struct's fields, a map's values or a list's items. */
interface Plan {
  fields?: Map<string, Plan | undefined>;
  mapValues?: Plan | undefined;
  sortedMap?: boolean;
  items?: Plan | undefined;
}

const plans = new Map<string, Plan | undefined>();

function modelPlan(name: string): Plan | undefined {
  if (plans.has(name)) return plans.get(name);
  const schema = BUILTIN_MODELS.get(name);
  if (!schema) {
    plans.set(name, undefined);
    return undefined;
  }
  // Recursive models (none today, but cheap to allow) find their own plan while it is filled.
  const plan: Plan = {};
  plans.set(name, plan);
  Object.assign(plan, nodePlan(schema) ?? {});
  return plan;
}

function nodePlan(s: Schema): Plan | undefined {
  const name = refName(s);
  if (name) return modelPlan(name);
  const items = asSchema(s.items);
  if (items) {
    const plan = nodePlan(items);
    return plan ? { items: plan } : undefined;
  }
  const props = asSchema(s.properties);
  if (props) {
    const fields = new Map<string, Plan | undefined>();
    for (const [key, child] of Object.entries(props)) fields.set(key, nodePlan(asSchema(child) ?? {}));
    return { fields };
  }
  const values = asSchema(s.additionalProperties);
  if (values) return { sortedMap: true, mapValues: nodePlan(values) };
  return undefined;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function apply(v: JsonValue, plan: Plan | undefined): JsonValue {
  if (!plan) return v;
  if (Array.isArray(v)) return plan.items ? v.map((item) => apply(item, plan.items)) : v;
  if (!isObject(v)) return v;
  if (plan.fields) {
    const out: JsonObject = {};
    for (const [key, child] of plan.fields) {
      const value = v[key];
      if (value !== undefined) out[key] = apply(value, child);
    }
    // Fields a partial model does not list keep their relative order after the known ones.
    for (const key of Object.keys(v)) if (!plan.fields.has(key)) out[key] = v[key];
    return out;
  }
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

/** Reorders an object of a built-in kind into its Go struct order. */
export function builtinFieldOrder(group: string, version: string, kind: string): (obj: JsonObject) => JsonObject {
  const { name, schema } = builtinModel(group, version, kind);
  const plan = BUILTIN_MODELS.has(name) ? modelPlan(name) : nodePlan(schema);
  return (obj) => apply(obj, plan) as JsonObject;
}
