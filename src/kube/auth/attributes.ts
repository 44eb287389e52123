// The authorizer's view of a request, derived from method, path and query as kube-apiserver's
// RequestInfoFactory does (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go).
import type { Attributes } from './types.ts';
import type { UserInfo } from './user.ts';

const API_PREFIXES = new Set(['api', 'apis']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
/** Path verbs (`/watch/...`, `/proxy/...`); proxy paths have no subresource (the rest is the proxied path). */
const SPECIAL_VERBS = new Set(['watch', 'proxy']);
const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export function requestAttributes(method: string, url: URL, user: UserInfo): Attributes {
  const path = url.pathname;
  const nonResource: Attributes = {
    user,
    verb: method.toLowerCase(),
    resourceRequest: false,
    path,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  let parts = path.split('/').filter((p) => p !== '');
  if (parts.length < 1 || !API_PREFIXES.has(parts[0])) return nonResource;
  let apiGroup = '';
  if (parts[0] === 'apis') {
    if (parts.length < 3) return nonResource;
    apiGroup = parts[1];
    parts = parts.slice(2);
  } else {
    if (parts.length < 2) return nonResource;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0];
  parts = parts.slice(1);
  if (parts.length === 0) return nonResource;
  try {
    parts = parts.map((p) => decodeURIComponent(p));
  } catch {
    return nonResource;
  }

  // Other methods have no verb on resource paths (requestinfo.go leaves it empty).
  let verb = Object.hasOwn(METHOD_VERBS, method.toUpperCase()) ? METHOD_VERBS[method.toUpperCase()] : '';
  if (SPECIAL_VERBS.has(parts[0])) {
    if (parts.length > 1) verb = parts[0];
    parts = parts.slice(1);
  }

  let namespace = '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      namespace = parts[1];
      // /namespaces/{ns} itself, and its status/finalize, address the namespace object.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  }
  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts.length >= 3 && verb !== 'proxy' ? parts[2] : '';

  // A GET of a collection is a list, or a watch when asked (any value but false/0, as the query
  // parameter conversion reads it); a list or watch narrowed to one name by `metadata.name` is
  // authorized as that name. Path watches (`/watch/...`) never take the name from the selector.
  if (parts.length < 2 && verb === 'get') {
    const watch = url.searchParams.get('watch');
    verb = watch !== null && watch !== '0' && watch.toLowerCase() !== 'false' ? 'watch' : 'list';
    name = nameFromFieldSelector(url.searchParams.get('fieldSelector') ?? '');
  }
  // A DELETE of a collection is deletecollection.
  if (parts.length < 2 && verb === 'delete') verb = 'deletecollection';
  return {
    user,
    verb,
    resourceRequest: true,
    path,
    apiGroup,
    apiVersion,
    resource,
    subresource,
    namespace,
    name,
  };
}

/** fields.Selector.RequiresExactMatch("metadata.name"), kept only when it is a valid path segment. */
function nameFromFieldSelector(selector: string): string {
  let name = '';
  for (const term of selector.split(',')) {
    const m = /^metadata\.name==?(.*)$/.exec(term.trim());
    if (m) name = m[1];
  }
  return name === '.' || name === '..' || name.includes('/') || name.includes('%') ? '' : name;
}
