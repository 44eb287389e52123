// GET of one object or of a collection, as JSON or the conversion the request negotiated.
import { listJson, listObjects } from '../../registry/list.ts';
import { validateListOptions } from '../../registry/list-options.ts';
import { queryInt } from '../request.ts';
import { listOptionsParams, selectorFilter } from './filter.ts';
import { convertedListBody, objectBody } from './representation.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export function serveGet(deps: HandlerDeps, r: ResourceRequest, name: string): void {
  const obj = deps.store.get(r.def, r.namespace, name);
  return sendJson(r.res, 200, objectBody(deps, r, JSON.stringify(obj)));
}

export function serveList(deps: HandlerDeps, r: ResourceRequest): void {
  const { def, query } = r;
  const present = (json: string) => deps.store.presentJson(def, json);
  const filter = selectorFilter(def, query);
  const options = listOptionsParams(query, false);
  validateListOptions(options);
  const result = listObjects(deps.store.storage, def, r.namespace, {
    filter,
    limit: queryInt(query, 'limit'),
    continueToken: options.continueToken,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
  });
  const converted = convertedListBody(deps, r, () => result.items.map((i) => present(i.json)), result);
  if (converted !== undefined) return sendJson(r.res, 200, converted);
  return sendJson(r.res, 200, listJson(def, result, present));
}
