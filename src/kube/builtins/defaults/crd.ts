// CustomResourceDefinition defaults (apiextensions v1 SetDefaults_CustomResourceDefinitionSpec)
// and the status its strategy's PrepareForCreate starts every new CRD with
// (apiextensions-apiserver pkg/registry/customresourcedefinition/strategy.go): no conditions, empty
// accepted names, and the storage version recorded as stored. The CRD controller fills the rest.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { ensureObj, objects, setIfNil, str } from '../json.ts';

/** CustomResourceDefinitionNames in its Go field order; empty optional fields stay absent. */
const NAME_FIELDS = ['plural', 'singular', 'shortNames', 'kind', 'listKind', 'categories'];

export function defaultCrd(o: JsonObject, op: 'create' | 'update'): void {
  const spec = ensureObj(o, 'spec');
  const names = ensureObj(spec, 'names');
  const kind = str(names, 'kind') ?? '';
  if (!str(names, 'singular')) names.singular = kind.toLowerCase();
  if (!str(names, 'listKind') && kind) names.listKind = `${kind}List`;
  const orderedNames: JsonObject = {};
  for (const f of NAME_FIELDS) if (names[f] !== undefined) orderedNames[f] = names[f];
  for (const [k, v] of Object.entries(names)) if (!(k in orderedNames)) orderedNames[k] = v;
  spec.names = orderedNames;
  setIfNil(spec, 'conversion', { strategy: 'None' });
  if (op !== 'create') return;
  const storage = objects(spec, 'versions').find((v) => v.storage === true);
  o.status = {
    conditions: [],
    acceptedNames: { plural: '', kind: '' },
    storedVersions: storage && typeof storage.name === 'string' ? [storage.name] : [],
  };
}
