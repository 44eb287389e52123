// Field selectors for list/watch (`?fieldSelector=`): parsing, per-kind label checks with
// kube-apiserver's exact 400 messages, and matching against an object's selectable fields.
import { badRequest } from '../errors/index.ts';
import { convertFieldLabel, type FieldLabelOptions } from './field-labels.ts';
import { escapeFieldValue, parseFieldRequirements, type FieldRequirement } from './field-parser.ts';

export { fieldSet } from './field-sets.ts';
export { supportedFieldLabels, type CustomResourceFields, type FieldLabelOptions } from './field-labels.ts';
export type { FieldOperator, FieldRequirement } from './field-parser.ts';

export interface FieldMatcher {
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  readonly requirements: readonly FieldRequirement[];
  /** The labels the selector names, in selector order (duplicates kept). */
  fieldNames(): string[];
  /** The value an `x=v` term pins `field` to, if any (for index lookups). */
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

function fromRequirements(requirements: readonly FieldRequirement[]): FieldMatcher {
  return {
    requirements,
    empty: requirements.length === 0,
    // Absent fields read as "", as Go's fields.Set.Get does.
    matches: (fields) => requirements.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator === '=')),
    fieldNames: () => requirements.map((r) => r.field),
    requiresExactMatch: (field) => requirements.find((r) => r.field === field && r.operator === '=')?.value,
    toString: () => requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(','),
  };
}

/** Syntax only; any label is accepted. An empty string selects everything. */
export function parseFieldSelector(selector: string): FieldMatcher {
  const result = parseFieldRequirements(selector);
  if ('error' in result) throw badRequest(result.error);
  return fromRequirements(result.requirements);
}

/**
 * Checks every label against what the resource supports and applies upstream's renames
 * (pods: spec.host → spec.nodeName). The first unsupported label, in sorted term order, is
 * reported with the message kube-apiserver gives for that kind.
 */
export function convertFieldSelector(
  matcher: FieldMatcher,
  group: string,
  resource: string,
  opts: FieldLabelOptions = {},
): FieldMatcher {
  const converted = matcher.requirements.map((r) => {
    const result = convertFieldLabel(group, resource, r.field, opts);
    if ('error' in result) throw badRequest(result.error);
    return { ...r, field: result.label };
  });
  return fromRequirements(converted);
}

/** parseFieldSelector + convertFieldSelector: what the list/watch handler needs. */
export function parseFieldSelectorFor(
  selector: string,
  group: string,
  resource: string,
  opts: FieldLabelOptions = {},
): FieldMatcher {
  return convertFieldSelector(parseFieldSelector(selector), group, resource, opts);
}
