// A built-in model as a CRD may embed it: the structural schema controller-gen emits for a Go field
// of a core type. References are inlined (a CRD schema may not hold `$ref`), IntOrString and
// Quantity take kube's int-or-string form, an embedded ObjectMeta is a bare object (the server
// owns its schema), and the strategic-merge-patch annotations, which CRDs do not support, go.
import type { JsonSchema, Schema as DslSchema } from '../../../apimachinery/schema/index.ts';
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import { s } from '../../../apimachinery/schema/index.ts';
import { cloneJson } from '../../../apimachinery/json/index.ts';
import { BUILTIN_MODELS } from './index.ts';
import { INT_OR_STRING, META, QUANTITY, asSchema, refName, type Schema } from './schema.ts';

/** Extensions of the built-in models that mean nothing to a CRD (strategic merge patch, kinds). */
const DROPPED = new Set([
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-group-version-kind',
]);

/** Models whose CRD form is not their API form. */
const SPECIAL: Record<string, () => JsonSchema> = {
  [INT_OR_STRING]: () => s.intOrString().json,
  [QUANTITY]: () => s.quantity().json,
  [`${META}.ObjectMeta`]: () => ({ type: 'object' }),
};

/** The structural schema of built-in model `name` (e.g. io.k8s.api.core.v1.Container), refs inlined. */
export function structuralModel(name: string): JsonSchema {
  return inlineModel(name, []);
}

function inlineModel(name: string, path: string[]): JsonSchema {
  const special = SPECIAL[name];
  if (special) return special();
  const model = BUILTIN_MODELS.get(name);
  if (!model) throw new Error(`no built-in model ${name}`);
  // A recursive type cannot be inlined; kube's core types that CRDs embed are not recursive.
  if (path.includes(name)) throw new Error(`built-in model ${name} is recursive: ${[...path, name].join(' -> ')}`);
  return inline(model, [...path, name]);
}

function inline(node: Schema, path: string[]): JsonSchema {
  const target = refName(node);
  if (target !== undefined) {
    const inlined = inlineModel(target, path);
    // The field's own description wins over the type's, as controller-gen does.
    return typeof node.description === 'string' ? { ...inlined, description: node.description } : inlined;
  }
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === 'properties') {
      const props: Record<string, JsonValue> = {};
      for (const [p, sub] of Object.entries(asSchema(value) ?? {}))
        props[p] = toJson(inline(asSchema(sub) ?? {}, path));
      out[key] = props;
      continue;
    }
    const sub = key === 'items' || key === 'additionalProperties' ? asSchema(value) : undefined;
    if (sub) out[key] = toJson(inline(sub, path));
    else if (value !== undefined) out[key] = cloneJson(value);
  }
  return out as JsonSchema;
}

function toJson(schema: JsonSchema): JsonValue {
  return schema as unknown as JsonValue;
}

/**
 * A built-in type as a schema of the CRD DSL, so a custom resource can embed it:
 * `containers: s.array(builtinSchema<V1Container>('io.k8s.api.core.v1.Container'))`.
 * `T` is the TypeScript type of the model (the caller names it; see coreSchemas).
 */
export function builtinSchema<T>(modelName: string): DslSchema<T> {
  if (!BUILTIN_MODELS.has(modelName) && !(modelName in SPECIAL)) throw new Error(`no built-in model ${modelName}`);
  // Inlined on first use: importing peerpods/kube must not pay for schemas nobody embeds.
  let json: JsonSchema | undefined;
  return {
    get json(): JsonSchema {
      return (json ??= structuralModel(modelName));
    },
  };
}
