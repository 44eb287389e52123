// A CRD version's selectableFields (kube's ValidateCustomResourceSelectableFields): paths to
// string, boolean or integer fields outside metadata, at most eight.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asString } from '../json.ts';
import { child, index } from '../../../apimachinery/validation/field-path.ts';
import {
  fieldDuplicate,
  fieldInvalid,
  fieldRequired,
  fieldTooMany,
} from '../../../apimachinery/validation/field-errors.ts';
import type { Structural } from '../schema/structural.ts';

const MAX_SELECTABLE_FIELDS = 8;

/** cel.ValidFieldPath without array notation: resolves `.a.b` to a schema node or explains why not. */
function resolveFieldPath(
  jsonPath: string,
  schema: Structural | undefined,
): { segments: string[]; node?: Structural; error?: string } {
  const tokens = jsonPath.split(/([.[\]])/).filter((t) => t !== '');
  const segments: string[] = [];
  let node = schema;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok === '[') return { segments, error: 'array notation is not allowed' };
    if (tok !== '.') return { segments, error: `expected [ or . but got: ${tok}` };
    const name = tokens[++i];
    if (name === undefined) return { segments, error: 'unexpected end of JSON path' };
    if (node?.properties) {
      node = node.properties.get(name);
      if (!node) return { segments, error: 'does not refer to a valid field' };
    } else if (node?.additionalProperties) node = node.additionalProperties.schema;
    else return { segments, error: 'does not refer to a valid field' };
    segments.push(name);
  }
  return { segments, node };
}

export function validateSelectableFields(
  fields: JsonObject[],
  schema: Structural | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const p = index(path, i);
    const jsonPath = asString(f.jsonPath) ?? '';
    if (!jsonPath) {
      errs.push(fieldRequired(child(p, 'jsonPath')));
      return;
    }
    const r = resolveFieldPath(jsonPath, schema);
    if (r.error) {
      errs.push(fieldInvalid(child(p, 'jsonPath'), jsonPath, `is an invalid path: ${r.error}`));
      return;
    }
    if (r.segments[0] === 'metadata')
      errs.push(fieldInvalid(child(p, 'jsonPath'), jsonPath, 'must not point to fields in metadata'));
    if (!r.node || !['string', 'boolean', 'integer'].includes(r.node.type)) {
      errs.push(
        fieldInvalid(
          child(p, 'jsonPath'),
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
    const id = r.segments.join('.');
    if (unique.has(id)) errs.push(fieldDuplicate(child(p, 'jsonPath'), jsonPath));
    else unique.add(id);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(fieldTooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}
