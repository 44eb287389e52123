// DELETE of one object, and deletecollection over the objects a selector matches.
import { StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { RequestContext } from '../../registry/context.ts';
import { listObjects } from '../../registry/list.ts';
import { validateListOptions } from '../../registry/list-options.ts';
import { apiVersionOf } from '../../registry/resource.ts';
import type { DecodedWriteOf as Decoded } from './body.ts';
import { listOptionsParams, selectorFilter } from './filter.ts';
import { objectBody } from './representation.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export async function serveDelete(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'delete'>,
  ctx: RequestContext,
): Promise<void> {
  const result = await deps.store.delete(r.def, r.namespace, call.name, call.options, withDryRun(ctx, call.dryRun));
  sendJson(r.res, 200, objectBody(deps, r, JSON.stringify(result.object)));
}

/** A deletion is a dry run when its DeleteOptions say so, wherever they came from (body or query). */
function withDryRun(ctx: RequestContext, dryRun: boolean): RequestContext {
  return ctx.dryRun === dryRun ? ctx : { ...ctx, dryRun };
}

/** Objects that vanish meanwhile are skipped; the answer lists what this request deleted. */
export async function serveDeleteCollection(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'deletecollection'>,
  ctx: RequestContext,
): Promise<void> {
  const { def } = r;
  const filter = selectorFilter(def, r.query);
  validateListOptions(listOptionsParams(r.query, false));
  const deleteCtx = withDryRun(ctx, call.dryRun);
  const result = listObjects(deps.store.storage, def, r.namespace, { filter });
  const deleted: string[] = [];
  for (const item of result.items) {
    const obj = JSON.parse(item.json) as JsonObject;
    const m = obj.metadata as { name: string; namespace?: string };
    try {
      const removed = await deps.store.delete(def, m.namespace, m.name, call.options, deleteCtx);
      deleted.push(JSON.stringify(removed.object));
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  sendJson(
    r.res,
    200,
    `{"kind":${JSON.stringify(def.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(def))},"metadata":{},"items":[${deleted.join(',')}]}`,
  );
}
