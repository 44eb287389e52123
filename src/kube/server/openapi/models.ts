// The model set of one catalog state: every served kind and its list, built-in or custom, each
// tagged with x-kubernetes-group-version-kind, plus what they refer to.
import type { ResourceCatalog } from '../../registry/catalog.ts';
import { apiVersionOf, type ResourceDef } from '../../registry/resource.ts';
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import { BUILTIN_MODELS, builtinModel, listModel } from '../../builtins/openapi/index.ts';
import { customResourceModel, type CrdIndex } from './crd-models.ts';
import {
  AUTOSCALING,
  CORE,
  POLICY,
  REF_PREFIX,
  customModelName,
  withGvk,
  type Gvk,
  type Schema,
} from '../../builtins/openapi/schema.ts';

export interface ModelSet {
  schemas: Map<string, Schema>;
  /** Model name of a served resource's kind. */
  kindModel(def: ResourceDef): string;
  listModel(def: ResourceDef): string;
}

export const SCALE_MODEL = `${AUTOSCALING}.Scale`;
export const BINDING_MODEL = `${CORE}.Binding`;
export const EVICTION_MODEL = `${POLICY}.Eviction`;

export function buildModels(catalog: ResourceCatalog, crds: CrdIndex): ModelSet {
  const schemas = new Map<string, Schema>(BUILTIN_MODELS);
  const kindNames = new Map<ResourceDef, string>();
  const listNames = new Map<ResourceDef, string>();
  const add = (name: string, schema: Schema, gvk: Gvk): void => {
    schemas.set(name, withGvk(schema, [gvk]));
  };
  for (const def of catalog.all()) {
    const { group, version } = def;
    let name: string;
    if (def.builtin) {
      const m = builtinModel(group, version, def.kind);
      name = m.name;
      add(name, m.schema, { group, version, kind: def.kind });
    } else {
      name = customModelName(group, version, def.kind);
      add(name, customResourceModel(def.kind, apiVersionOf(def), crds.schemaOf(group, version, def.kind)), {
        group,
        version,
        kind: def.kind,
      });
    }
    const list = `${name}List`;
    add(list, listModel(name, def.listKind), { group, version, kind: def.listKind });
    kindNames.set(def, name);
    listNames.set(def, list);
  }
  add(SCALE_MODEL, BUILTIN_MODELS.get(SCALE_MODEL)!, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  add(BINDING_MODEL, BUILTIN_MODELS.get(BINDING_MODEL)!, { group: '', version: 'v1', kind: 'Binding' });
  add(EVICTION_MODEL, BUILTIN_MODELS.get(EVICTION_MODEL)!, { group: 'policy', version: 'v1', kind: 'Eviction' });
  return {
    schemas,
    kindModel: (def) => kindNames.get(def) ?? '',
    listModel: (def) => listNames.get(def) ?? '',
  };
}

/** `roots` and every model they refer to, directly or not, in a stable order. */
export function referencedModels(schemas: Map<string, Schema>, roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    const schema = schemas.get(name);
    if (!schema) return;
    seen.add(name);
    walkRefs(schema, visit);
  };
  for (const r of roots) visit(r);
  return [...seen].sort();
}

function walkRefs(v: JsonValue | undefined, found: (name: string) => void): void {
  if (Array.isArray(v)) {
    for (const x of v) walkRefs(x, found);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith(REF_PREFIX)) found(x.slice(REF_PREFIX.length));
      else walkRefs(x, found);
    }
  }
}
