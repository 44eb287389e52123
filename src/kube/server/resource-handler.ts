// Serves one resource request: GET/LIST/WATCH/POST/PUT/PATCH/DELETE on a resource path,
// including the status, scale, binding, eviction and finalize subresources. Every request goes
// through the same steps: resolve the verb (answering 404/405/415 before anything is read),
// build the request context, read and decode the body once, then hand the decoded request to
// the verb's handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/user.ts';
import { methodNotAllowed } from '../../apimachinery/errors/index.ts';
import type { RequestContext } from '../registry/context.ts';
import { createOnlyKey } from './extensions.ts';
import { inGoFieldOrder } from '../builtins/index.ts';
import { decodeBody, OBJECT_BODY_TYPES, readBody } from './request.ts';
import { sendJson } from './resource/response.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
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
  user: UserInfo,
): Promise<void> {
  const namespace = resolveNamespace(def, route);
  const createOnly = deps.extensions.createOnly?.get(createOnlyKey(def.group, def.resource, route.subresource));
  if (createOnly) {
    if (req.method !== 'POST')
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    const ctx = requestContext(req, query, user, false);
    const body = decodeBody(await readBody(req), req.headers['content-type'], OBJECT_BODY_TYPES, ctx) as JsonObject;
    const reply = await createOnly.create({ def, namespace, name: route.name, body }, ctx);
    // Never stored, so never ordered on the way in: ordered here, as kube writes its Go struct.
    return sendJson(res, reply.code, JSON.stringify(inGoFieldOrder(reply.object)), ctx.warnings);
  }
  const verb = resolveVerb(def, route, req.method ?? 'GET', query, req.headers['content-type']);
  const output = negotiateOutput(req, { table: deps.extensions.table !== undefined });
  const r: ResourceRequest = { def, namespace, subresource: route.subresource, req, res, query, output };
  if (isReadVerb(verb)) return serveRead(deps, r, verb);
  const ctx = requestContext(req, query, user, verb.kind === 'patch' && verb.patchType === 'apply');
  const call = await decodeWrite(def, verb, req, query, ctx);
  return serveWrite(deps, r, call, ctx);
}

function serveRead(deps: HandlerDeps, r: ResourceRequest, verb: ReadVerb): void | Promise<void> {
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
