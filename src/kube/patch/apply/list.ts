// How a list item is named in a field path: by its key fields in a map-list, by its value in a
// set. Errors carry structured-merge-diff's wording, since kube-apiserver puts it verbatim into
// the 500 it returns for an apply body it cannot type.
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import type { PathElement } from './path.ts';
import type { FieldPath, ListKind, SchemaInfo } from '../schema-info.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { compareStrings } from '../../../apimachinery/strings/compare.ts';

/** The list kind at `names`, with atomic spelled out (SchemaInfo answers undefined for it). */
export function listKindAt(schema: SchemaInfo, names: FieldPath): ListKind {
  return schema.listKind(names) ?? { type: 'atomic' };
}

export function isAtomicMapAt(schema: SchemaInfo, names: FieldPath): boolean {
  return schema.isAtomicMap?.(names) ?? false;
}

/** The path element naming `item` in a granular list, or the reason it has none. */
export function listItemElement(
  schema: SchemaInfo,
  names: FieldPath,
  kind: ListKind,
  item: JsonValue,
): PathElement | { error: string } {
  if (kind.type === 'map') {
    if (item === null) return { error: 'associative list with keys may not have a null element' };
    if (!isObject(item)) return { error: 'associative list with keys may not have non-map elements' };
    const key: [string, JsonValue][] = [];
    for (const name of kind.keys) {
      const v = item[name] ?? schema.listKeyDefault?.(names, name);
      if (v !== undefined) key.push([name, v]);
    }
    if (key.length === 0) {
      const quoted = kind.keys.map((k) => JSON.stringify(k)).join(' ');
      return {
        error: `associative list with keys has an element that omits all key fields [${quoted}] (and doesn't have default values for any key fields)`,
      };
    }
    key.sort((a, b) => compareStrings(a[0], b[0]));
    return { kind: 'key', key };
  }
  if (isObject(item)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
  return { kind: 'value', value: item };
}
