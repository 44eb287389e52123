// POST, PUT and PATCH on the object itself or its status/finalize subresources.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { RequestContext } from '../../registry/context.ts';
import type { WriteResult } from '../../registry/store/index.ts';
import { queryBool } from '../request.ts';
import type { DecodedWriteOf as Decoded } from './body.ts';
import { objectBody } from './representation.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export async function serveCreate(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'create'>,
  ctx: RequestContext,
): Promise<void> {
  const created = await deps.store.create(r.def, r.namespace, call.object, ctx);
  sendJson(r.res, 201, objectBody(deps, r, JSON.stringify(created)), ctx.warnings);
}

export async function serveUpdate(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'update'>,
  ctx: RequestContext,
): Promise<void> {
  const result = await deps.store.update(r.def, r.namespace, call.name, call.object, ctx, r.subresource);
  sendWritten(deps, r, result, ctx);
}

export async function servePatch(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'patch'>,
  ctx: RequestContext,
): Promise<void> {
  const force = queryBool(r.query, 'force');
  if (force !== undefined && call.patchType !== 'apply')
    throw badRequest('force: Invalid value: true: may not be specified for non-apply patch');
  const result = await deps.store.patch(r.def, r.namespace, call.name, call.patchType, call.patch, ctx, {
    subresource: r.subresource,
    force,
  });
  sendWritten(deps, r, result, ctx);
}

function sendWritten(deps: HandlerDeps, r: ResourceRequest, result: WriteResult, ctx: RequestContext): void {
  sendJson(r.res, result.created ? 201 : 200, objectBody(deps, r, JSON.stringify(result.object)), ctx.warnings);
}
