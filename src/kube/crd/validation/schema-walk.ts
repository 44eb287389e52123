// Walks every schema node of a CRD schema, nested ones (anyOf, items, ...) included; used to ask
// "does the old CRD already break this rule?" before applying a rule to an update.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject } from '../json.ts';
import { pruneValue } from '../schema/pruning.ts';
import { toStructural } from '../schema/structural.ts';
import type { Structural } from '../schema/structural.ts';
import { validateStructural } from './structural.ts';
import { structuralInitError } from './structural-init.ts';
import { cloneJson, deepEqual, isObject } from '../../../apimachinery/json/index.ts';

function children(s: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  const push = (v: unknown) => {
    if (isObject(v)) out.push(v);
  };
  if (Array.isArray(s.items)) s.items.forEach(push);
  else push(s.items);
  for (const k of ['allOf', 'anyOf', 'oneOf']) (asArray(s[k]) ?? []).forEach(push);
  push(s.not);
  for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies'])
    Object.values(asObject(s[k]) ?? {}).forEach(push);
  push(s.additionalProperties);
  push(s.additionalItems);
  return out;
}

export function schemaHas(s: JsonObject, pred: (node: JsonObject) => boolean): boolean {
  return pred(s) || children(s).some((c) => schemaHas(c, pred));
}

/** Whether some default in a (structural) schema would lose fields to pruning. */
export function unprunedDefaults(raw: JsonObject): boolean {
  if (!schemaHas(raw, (n) => n.default !== undefined && n.default !== null)) return false;
  if (structuralInitError(raw) || validateStructural(null, toStructural(raw)).length) return false;
  const visit = (s: Structural): boolean => {
    if (s.default !== undefined) {
      const pruned = cloneJson(s.default);
      pruneValue(pruned, s, s.xEmbeddedResource);
      if (!deepEqual(pruned, s.default)) return true;
    }
    if (s.items && visit(s.items)) return true;
    if (s.additionalProperties?.schema && visit(s.additionalProperties.schema)) return true;
    return [...(s.properties?.values() ?? [])].some(visit);
  };
  return visit(toStructural(raw));
}
