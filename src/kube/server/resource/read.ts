// GET of one object or of a collection, as JSON or (when asked for) a Table.
import { listJson, listObjects } from '../../registry/list.ts';
import { queryInt } from '../request.ts';
import { selectorFilter } from './filter.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export function serveGet(deps: HandlerDeps, r: ResourceRequest, name: string): void {
  const obj = deps.store.get(r.def, r.namespace, name);
  const table = deps.extensions.table?.object(r.def, JSON.stringify(obj), r.req);
  if (table) return sendJson(r.res, 200, table.body);
  return sendJson(r.res, 200, JSON.stringify(obj));
}

export function serveList(deps: HandlerDeps, r: ResourceRequest): void {
  const { def, query } = r;
  const present = (json: string) => deps.store.presentJson(def, json);
  const filter = selectorFilter(def, query);
  const result = listObjects(deps.store.storage, def, r.namespace, {
    filter,
    limit: queryInt(query, 'limit'),
    continueToken: query.get('continue') ?? undefined,
    resourceVersion: query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
  });
  const table = deps.extensions.table?.list(
    def,
    result.items.map((i) => present(i.json)),
    r.req,
    result,
  );
  if (table) return sendJson(r.res, 200, table.body, []);
  return sendJson(r.res, 200, listJson(def, result, present));
}
