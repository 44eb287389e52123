// Plain (non-upgrade) requests for the node subresources of pods: pods/log is served here;
// exec, attach and portforward answer kube's 400 `Upgrade request required` once the pod and
// container are known to be right (the proxy handler checks the upgrade after the location).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed, StatusError } from '../../../apimachinery/errors/index.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { ResourceRoute } from '../request.ts';
import type { HandlerDeps } from '../resource/types.ts';
import { parseExecOptions } from './exec-options.ts';
import { servePodLog } from './logs.ts';
import { chooseContainer, getPod, requireNode } from './pod-target.ts';

export function notServed(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export async function serveNodeSubresource(
  deps: HandlerDeps,
  def: ResourceDef,
  route: ResourceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const { namespace, name, subresource } = route;
  if (namespace === undefined || name === undefined) throw notServed();
  const method = req.method ?? 'GET';
  if (subresource === 'log') {
    if (method !== 'GET') throw methodNotAllowed('the server does not allow this method on the requested resource');
    return servePodLog(deps, def, namespace, name, res, query);
  }
  if (!deps.extensions.podStreams) throw notServed();
  if (method !== 'GET' && method !== 'POST') {
    throw methodNotAllowed('the server does not allow this method on the requested resource');
  }
  const pod = getPod(deps.store, def, namespace, name);
  if (subresource !== 'portforward') chooseContainer(pod, parseExecOptions(query).container);
  requireNode(pod);
  req.resume();
  throw badRequest('Upgrade request required');
}
