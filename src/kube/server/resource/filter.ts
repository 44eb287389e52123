// The ListOptions of a list, watch or deletecollection: its label and field selectors, and the
// resourceVersion parameters validateListOptions checks.
import { ObjectFilter } from '../../registry/filter.ts';
import type { ListOptionsParams } from '../../registry/list-options.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import { queryBool } from '../request.ts';

export function selectorFilter(def: ResourceDef, query: URLSearchParams): ObjectFilter {
  return ObjectFilter.parse(def, query.get('labelSelector') ?? undefined, query.get('fieldSelector') ?? undefined);
}

/** Empty parameters count as absent, as the parameter codec leaves the Go fields empty. */
export function listOptionsParams(query: URLSearchParams, watch: boolean): ListOptionsParams {
  return {
    watch,
    resourceVersion: query.get('resourceVersion') || undefined,
    resourceVersionMatch: query.get('resourceVersionMatch') || undefined,
    continueToken: query.get('continue') || undefined,
    sendInitialEvents: queryBool(query, 'sendInitialEvents'),
  };
}
