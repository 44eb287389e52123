// Which verb a resource request is, decided before the context is built or the body read: the
// answers for paths, methods and patch types the resource does not serve (404, 405, 415) come
// first, as kube-apiserver's.
import { methodNotAllowed, notFound, StatusError, unsupportedMediaType } from '../../../apimachinery/errors/index.ts';
import { PATCH_CONTENT_TYPES, type PatchType } from '../../registry/patching.ts';
import { hasSubresource, type ResourceDef } from '../../registry/resource.ts';
import { mediaType, queryBool, type ResourceRoute } from '../request.ts';

export type ReadVerb =
  { kind: 'list' } | { kind: 'watch' } | { kind: 'get'; name: string } | { kind: 'get-scale'; name: string };

export type WriteVerb =
  | { kind: 'create' }
  | { kind: 'deletecollection' }
  | { kind: 'update'; name: string }
  | { kind: 'patch'; name: string; patchType: PatchType }
  | { kind: 'delete'; name: string }
  | { kind: 'bind'; name: string }
  | { kind: 'evict'; name: string }
  | { kind: 'update-scale'; name: string; method: 'PUT' | 'PATCH' };

export type ResourceVerb = ReadVerb | WriteVerb;

export function isReadVerb(verb: ResourceVerb): verb is ReadVerb {
  return verb.kind === 'list' || verb.kind === 'watch' || verb.kind === 'get' || verb.kind === 'get-scale';
}

/** The namespace the request addresses, checked against the resource's scope and subresources. */
export function resolveNamespace(def: ResourceDef, route: ResourceRoute): string | undefined {
  if (!def.namespaced && route.namespace !== undefined)
    throw notFound({ group: def.group, resource: def.resource }, route.resource);
  const sub = route.subresource;
  if (sub !== undefined && !hasSubresource(def, sub)) {
    throw new StatusError(404, 'NotFound', `the server could not find the requested resource`, {});
  }
  return def.namespaced ? route.namespace : undefined;
}

export function resolveVerb(
  def: ResourceDef,
  route: ResourceRoute,
  method: string,
  query: URLSearchParams,
  contentType: string | undefined,
): ResourceVerb {
  if (route.name === undefined) return collectionVerb(def, route, method, query);
  return objectVerb(route.name, route.subresource, method, contentType);
}

function collectionVerb(def: ResourceDef, route: ResourceRoute, method: string, query: URLSearchParams): ResourceVerb {
  if (def.namespaced && route.namespace === undefined && method !== 'GET') throw notAllowed();
  if (method === 'GET') {
    const watch = route.legacyWatch || queryBool(query, 'watch') === true;
    return { kind: watch ? 'watch' : 'list' };
  }
  if (method === 'POST') return { kind: 'create' };
  if (method === 'DELETE') return { kind: 'deletecollection' };
  throw notAllowed();
}

function objectVerb(
  name: string,
  subresource: string | undefined,
  method: string,
  contentType: string | undefined,
): ResourceVerb {
  if (subresource === 'binding' || subresource === 'eviction') {
    if (method !== 'POST') throw notAllowed();
    return { kind: subresource === 'binding' ? 'bind' : 'evict', name };
  }
  if (subresource === 'scale') {
    if (method === 'GET') return { kind: 'get-scale', name };
    if (method === 'PUT' || method === 'PATCH') return { kind: 'update-scale', name, method };
    throw notAllowed();
  }
  switch (method) {
    case 'GET':
      return { kind: 'get', name };
    case 'PUT':
      return { kind: 'update', name };
    case 'PATCH':
      return { kind: 'patch', name, patchType: patchTypeOf(contentType) };
    case 'DELETE':
      if (subresource !== undefined) throw notAllowed();
      return { kind: 'delete', name };
    default:
      throw notAllowed();
  }
}

function patchTypeOf(contentType: string | undefined): PatchType {
  const media = mediaType(contentType);
  if (Object.hasOwn(PATCH_CONTENT_TYPES, media)) return PATCH_CONTENT_TYPES[media];
  throw unsupportedMediaType(
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
  );
}

function notAllowed(): StatusError {
  return methodNotAllowed('the server does not allow this method on the requested resource');
}
