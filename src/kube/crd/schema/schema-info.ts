// SchemaInfo (how lists and maps merge under server-side apply) read from a CRD's structural
// schema. Object metadata follows ObjectMeta's own markers: finalizers is a set, ownerReferences
// a map keyed by uid. A map list's key fields may carry a `default`, which names the items that
// omit them (kube-openapi pkg/schemaconv copies it into structured-merge-diff's StructField.Default).
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, ListKind, SchemaInfo } from '../../patch/schema-info.ts';
import type { Structural } from './structural.ts';

function resolve(root: Structural | undefined, path: FieldPath): Structural | undefined {
  let node = root;
  for (const name of path) {
    while (node?.items) node = node.items;
    if (!node) return undefined;
    node = node.properties?.get(name) ?? node.additionalProperties?.schema;
  }
  return node;
}

function isMetadata(path: FieldPath, field: string): boolean {
  return path.length === 2 && path[0] === 'metadata' && path[1] === field;
}

export function structuralSchemaInfo(root: Structural | undefined): SchemaInfo {
  return {
    listKind(path: FieldPath): ListKind | undefined {
      if (isMetadata(path, 'finalizers')) return { type: 'set' };
      if (isMetadata(path, 'ownerReferences')) return { type: 'map', keys: ['uid'] };
      const node = resolve(root, path);
      switch (node?.xListType) {
        case 'atomic':
          return { type: 'atomic' };
        case 'set':
          return { type: 'set' };
        case 'map':
          return { type: 'map', keys: [...(node.xListMapKeys ?? [])] };
        default:
          return undefined;
      }
    },
    isAtomicMap(path: FieldPath): boolean {
      return resolve(root, path)?.xMapType === 'atomic';
    },
    listKeyDefault(path: FieldPath, key: string): JsonValue | undefined {
      return resolve(root, path)?.items?.properties?.get(key)?.default;
    },
  };
}
