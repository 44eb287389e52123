// GET of one object or of a collection, as JSON or the conversion the request negotiated. A CRD
// converted by a webhook answers once its conversion is back; every other resource synchronously.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { listBody, listJson, listObjects, type ListResult } from '../../registry/list.ts';
import { validateListOptions } from '../../registry/list-options.ts';
import { queryInt } from '../request.ts';
import { listOptionsParams, selectorFilter } from './filter.ts';
import { convertedListBody, objectBody } from './representation.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export function serveGet(deps: HandlerDeps, r: ResourceRequest, name: string): void | Promise<void> {
  const send = (obj: JsonObject) => sendJson(r.res, 200, objectBody(deps, r, JSON.stringify(obj)));
  if (r.def.converter) return deps.store.getConverted(r.def, r.namespace, name).then(send);
  return send(deps.store.get(r.def, r.namespace, name));
}

export function serveList(deps: HandlerDeps, r: ResourceRequest): void | Promise<void> {
  const { def, query } = r;
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
  if (def.converter) return serveConvertedList(deps, r, result);
  const present = (json: string) => deps.store.presentJson(def, json);
  const converted = convertedListBody(deps, r, () => result.items.map((i) => present(i.json)), result);
  if (converted !== undefined) return sendJson(r.res, 200, converted);
  return sendJson(r.res, 200, listJson(def, result, present));
}

/**
 * The items stored in other versions go to the webhook in one review: the ConversionReview carries
 * a list, as kube's webhookConverter sends one (its storage decodes items one by one, though).
 */
async function serveConvertedList(deps: HandlerDeps, r: ResourceRequest, result: ListResult): Promise<void> {
  const items = await deps.store.servedListJson(
    r.def,
    result.items.map((i) => i.json),
  );
  const converted = convertedListBody(deps, r, () => items, result);
  return sendJson(r.res, 200, converted ?? listBody(r.def, result, items));
}
