// The label and field selectors of a list, watch or deletecollection.
import { ObjectFilter } from '../../registry/filter.ts';
import type { ResourceDef } from '../../registry/resource.ts';

export function selectorFilter(def: ResourceDef, query: URLSearchParams): ObjectFilter {
  return ObjectFilter.parse(def, query.get('labelSelector') ?? undefined, query.get('fieldSelector') ?? undefined);
}
