// Structural checks kube makes when it types an apply body: every item of a map-list or set must
// be nameable, and no two items may share a name. kube reports these with structured-merge-diff's
// messages in a 500 ("failed to create typed patch object ..."), which clients show verbatim.
import type { JsonValue } from '../../../apimachinery/meta/index.ts';
import type { FieldPath, SchemaInfo } from '../schema-info.ts';
import type { Path } from './path.ts';

import { field, pathToString, serializePathElement } from './path.ts';
import { listItemElement, listKindAt } from './list.ts';
import { isObject, presentKeys } from '../../../apimachinery/json/index.ts';

/** Problems as `<path>: <message>`, in structured-merge-diff's wording; empty when the body is fine. */
export function validateApplied(obj: JsonValue, schema: SchemaInfo): string[] {
  const errs: string[] = [];
  walk(errs, [], [], obj, schema);
  return errs;
}

/** How structured-merge-diff joins several problems into one message. */
export function formatValidationErrors(errs: string[]): string {
  return errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
}

function report(errs: string[], path: Path, message: string): void {
  errs.push(path.length ? `${pathToString(path)}: ${message}` : message);
}

function walk(errs: string[], path: Path, names: FieldPath, v: JsonValue, schema: SchemaInfo): void {
  if (isObject(v)) {
    for (const k of presentKeys(v)) walk(errs, [...path, field(k)], [...names, k], v[k] as JsonValue, schema);
    return;
  }
  if (!Array.isArray(v)) return;
  const kind = listKindAt(schema, names);
  if (kind.type === 'atomic') {
    v.forEach((item, i) => walk(errs, [...path, { kind: 'index', index: i }], names, item, schema));
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const pe = listItemElement(schema, names, kind, v[i]);
    if ('error' in pe) {
      // kube stops at the first item it cannot name: nothing below can be addressed.
      report(errs, path, `element ${i}: ${pe.error}`);
      return;
    }
    const k = serializePathElement(pe);
    if (seen.has(k)) report(errs, path, `duplicate entries for key ${pathToString([pe])}`);
    seen.add(k);
    walk(errs, [...path, pe], names, v[i], schema);
  }
}
