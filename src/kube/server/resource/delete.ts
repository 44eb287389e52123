// DELETE of one object, and deletecollection over the objects a selector matches.
import { StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { RequestContext } from '../../registry/context.ts';
import { listObjects } from '../../registry/list.ts';
import { apiVersionOf } from '../../registry/resource.ts';
import type { DecodedWriteOf as Decoded } from './body.ts';
import { selectorFilter } from './filter.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export async function serveDelete(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'delete'>,
  ctx: RequestContext,
): Promise<void> {
  const result = await deps.store.delete(r.def, r.namespace, call.name, call.options, ctx);
  sendJson(r.res, 200, JSON.stringify(result.object));
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
  const result = listObjects(deps.store.storage, def, r.namespace, { filter });
  const deleted: string[] = [];
  for (const item of result.items) {
    const obj = JSON.parse(item.json) as JsonObject;
    const m = obj.metadata as { name: string; namespace?: string };
    try {
      const removed = await deps.store.delete(def, m.namespace, m.name, call.options, ctx);
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
