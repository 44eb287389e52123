// SchemaInfo for built-in kinds, answered from the table in builtin-fields.ts. Kinds the table does
// not know (custom resources among them) still get ObjectMeta's lists.
//
// `retainKeys` is not needed to apply a patch (the server honours `$retainKeys` wherever a patch
// puts it, as kube-apiserver does); it is exported for whoever publishes OpenAPI, since kubectl
// only sends `$retainKeys` for fields whose schema says `x-kubernetes-patch-strategy: retainKeys`.
import type { JsonValue } from '../../apimachinery/meta/index.ts';
import type { FieldPath, ListKind, SchemaInfo } from './schema-info.ts';
import type { PatchField } from './builtin-fields.ts';
import { BUILTIN_PATCH_FIELDS, METADATA_PATCH_FIELDS } from './builtin-fields.ts';

export interface BuiltinSchemaInfo extends SchemaInfo {
  isAtomicMap(path: FieldPath): boolean;
  /** True for a map (or every item of a list) patched with `patchStrategy: retainKeys`. */
  retainKeys(path: FieldPath): boolean;
  /** Value kube defaults for `key` in the items of the map list at `path`, if it omits it. */
  listKeyDefault(path: FieldPath, key: string): JsonValue | undefined;
}

/** The patch metadata of a kind: ObjectMeta's plus the kind's own. `group` is "" for core. */
export function builtinPatchFields(group: string, kind: string): readonly PatchField[] {
  return [...METADATA_PATCH_FIELDS, ...(BUILTIN_PATCH_FIELDS.get(`${group}/${kind}`) ?? [])];
}

const cache = new Map<string, BuiltinSchemaInfo>();

export function builtinSchemaInfo(group: string, kind: string): BuiltinSchemaInfo {
  const id = `${group}/${kind}`;
  let info = cache.get(id);
  if (!info) {
    info = fromFields(builtinPatchFields(group, kind));
    cache.set(id, info);
  }
  return info;
}

// Field names may contain "." or "/" (label keys do), so paths are joined on NUL.
const keyOf = (path: FieldPath): string => path.join('\u0000');

function fromFields(fields: readonly PatchField[]): BuiltinSchemaInfo {
  const byPath = new Map(fields.map((f) => [keyOf(f.path), f]));
  const at = (path: FieldPath): PatchField | undefined => byPath.get(keyOf(path));
  return {
    listKind: (path): ListKind | undefined => at(path)?.list,
    isAtomicMap: (path) => at(path)?.atomicMap ?? false,
    retainKeys: (path) => at(path)?.retainKeys ?? false,
    listKeyDefault: (path, key) => {
      const defaults = at(path)?.keyDefaults;
      return defaults && Object.hasOwn(defaults, key) ? defaults[key] : undefined;
    },
  };
}
