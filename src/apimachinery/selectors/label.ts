// Label selectors as list/watch (`?labelSelector=`), objects (`spec.selector`, webhook
// `namespaceSelector`) and cache reads use them. Invalid selectors become the 400 BadRequest
// that kube-apiserver answers, with its message text.
import { badRequest } from '../errors/index.ts';
import { goQuote } from '../strings/goquote.ts';
import { parseLabelRequirements } from './label-parser.ts';
import {
  newRequirement,
  requirementMatches,
  requirementString,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.ts';

export type { LabelOperator, LabelRequirement } from './label-requirement.ts';

export interface LabelMatcher {
  matches(labels?: Readonly<Record<string, string>> | null): boolean;
  /** True when the selector does not restrict anything (kube's Selector.Empty()). */
  readonly empty: boolean;
  /** Requirements sorted by key; empty for both "everything" and "nothing". */
  readonly requirements: readonly LabelRequirement[];
  toString(): string;
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

function fromRequirements(requirements: readonly LabelRequirement[]): LabelMatcher {
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => requirementMatches(r, labels ?? {})),
    toString: () => requirements.map(requirementString).join(','),
  };
}

/** labels.Everything(). */
export const everything: LabelMatcher = fromRequirements([]);

/** labels.Nothing(): what a null LabelSelector object selects. */
export const nothing: LabelMatcher = {
  requirements: [],
  empty: false,
  matches: () => false,
  toString: () => '',
};

/** Parses `?labelSelector=`; an empty string selects everything. */
export function parseLabelSelector(selector: string): LabelMatcher {
  const result = parseLabelRequirements(selector);
  if ('error' in result) throw badRequest(result.error);
  return fromRequirements(result.requirements);
}

const OPERATORS: Record<string, LabelOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: null selects nothing, `{}` everything. Objects that went
 * through validation cannot fail here; anything else gets the conversion error as a 400.
 */
export function labelSelectorFromObject(selector: LabelSelector | null | undefined): LabelMatcher {
  if (selector === null || selector === undefined) return nothing;
  const matchLabels = Object.entries(selector.matchLabels ?? {});
  const expressions = selector.matchExpressions ?? [];
  if (matchLabels.length + expressions.length === 0) return everything;
  const requirements: LabelRequirement[] = [];
  const add = (key: string, operator: LabelOperator, values: readonly string[]): void => {
    // Upstream copies expression values with append(nil, ...), so an empty list prints as nil.
    const result = newRequirement(key, operator, values, true);
    if ('error' in result) throw badRequest(result.error);
    requirements.push(result.requirement);
  };
  for (const [key, value] of matchLabels) add(key, '=', [value]);
  for (const expr of expressions) {
    const operator = Object.hasOwn(OPERATORS, expr.operator) ? OPERATORS[expr.operator] : undefined;
    if (!operator) throw badRequest(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    add(expr.key, operator, expr.values ?? []);
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return fromRequirements(requirements);
}
