// Serves one resource request: GET/LIST/WATCH/POST/PUT/PATCH/DELETE on a resource path,
// including the status, scale, binding, eviction and finalize subresources. Every request goes
// through the same steps: resolve the verb (answering 404/405/415 before anything is read),
// build the request context, read and decode the body once, then hand the decoded request to
// the verb's handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../registry/context.ts';
import type { ResourceDef } from '../registry/resource.ts';
import { negotiateOutput } from './output/negotiate.ts';
import type { ResourceRoute } from './request.ts';
import { decodeWrite, type DecodedWrite } from './resource/body.ts';
import { requestContext } from './resource/context.ts';
import { serveDelete, serveDeleteCollection } from './resource/delete.ts';
import { serveGet, serveList } from './resource/read.ts';
import { isReadVerb, resolveNamespace, resolveVerb, type ReadVerb } from './resource/resolve.ts';
import { serveBind, serveEvict, serveGetScale, serveUpdateScale } from './resource/subresources.ts';
import type { HandlerDeps, ResourceRequest } from './resource/types.ts';
import { serveWatch } from './resource/watch.ts';
import { serveCreate, servePatch, serveUpdate } from './resource/write.ts';

export async function handleResource(
  deps: HandlerDeps,
  def: ResourceDef,
  route: ResourceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  user: string,
): Promise<void> {
  const namespace = resolveNamespace(def, route);
  const verb = resolveVerb(def, route, req.method ?? 'GET', query, req.headers['content-type']);
  const output = negotiateOutput(req, { table: deps.extensions.table !== undefined });
  const r: ResourceRequest = { def, namespace, subresource: route.subresource, req, res, query, output };
  if (isReadVerb(verb)) return serveRead(deps, r, verb);
  const ctx = requestContext(req, query, user, verb.kind === 'patch' && verb.patchType === 'apply');
  const call = await decodeWrite(def, verb, req, query, ctx);
  return serveWrite(deps, r, call, ctx);
}

function serveRead(deps: HandlerDeps, r: ResourceRequest, verb: ReadVerb): void {
  switch (verb.kind) {
    case 'list':
      return serveList(deps, r);
    case 'watch':
      return serveWatch(deps, r);
    case 'get':
      return serveGet(deps, r, verb.name);
    case 'get-scale':
      return serveGetScale(deps, r, verb.name);
  }
}

function serveWrite(deps: HandlerDeps, r: ResourceRequest, call: DecodedWrite, ctx: RequestContext): Promise<void> {
  switch (call.kind) {
    case 'create':
      return serveCreate(deps, r, call, ctx);
    case 'update':
      return serveUpdate(deps, r, call, ctx);
    case 'patch':
      return servePatch(deps, r, call, ctx);
    case 'delete':
      return serveDelete(deps, r, call, ctx);
    case 'deletecollection':
      return serveDeleteCollection(deps, r, call, ctx);
    case 'bind':
      return serveBind(deps, r, call, ctx);
    case 'evict':
      return serveEvict(deps, r, call, ctx);
    case 'update-scale':
      return serveUpdateScale(deps, r, call, ctx);
  }
}
