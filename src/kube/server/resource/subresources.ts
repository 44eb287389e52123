// The subresources whose logic lives in the server's extensions: pods/binding, pods/eviction
// and scale.
import type { RequestContext } from '../../registry/context.ts';
import type { DecodedWriteOf as Decoded } from './body.ts';
import { sendJson } from './response.ts';
import type { HandlerDeps, ResourceRequest } from './types.ts';

export async function serveBind(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'bind'>,
  ctx: RequestContext,
): Promise<void> {
  const result = await deps.extensions.bind(r.def, r.namespace, call.name, call.binding, ctx);
  sendJson(r.res, 201, JSON.stringify(result));
}

export async function serveEvict(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'evict'>,
  ctx: RequestContext,
): Promise<void> {
  const result = await deps.extensions.evict(r.def, r.namespace, call.name, call.object, ctx);
  sendJson(r.res, 201, JSON.stringify(result), ctx.warnings);
}

export async function serveGetScale(deps: HandlerDeps, r: ResourceRequest, name: string): Promise<void> {
  sendJson(r.res, 200, JSON.stringify(await deps.extensions.scale.get(r.def, r.namespace, name)));
}

export async function serveUpdateScale(
  deps: HandlerDeps,
  r: ResourceRequest,
  call: Decoded<'update-scale'>,
  ctx: RequestContext,
): Promise<void> {
  const { scale } = deps.extensions;
  const updated = await scale.update(r.def, r.namespace, call.name, call.method, call.raw, call.mediaType, ctx);
  sendJson(r.res, 200, JSON.stringify(updated));
}
