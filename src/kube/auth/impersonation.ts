// Impersonation, as kube-apiserver's WithImpersonation filter
// (apiserver/pkg/endpoints/filters/impersonation.go): the Impersonate-User, -Group, -Uid and
// -Extra-<key> headers replace the authenticated user once the authorizer allows the
// authenticated user to `impersonate` each of them.
import type { IncomingMessage } from 'node:http';
import { goQuote } from '../../apimachinery/strings/index.ts';
import { parseServiceAccountUsername, serviceAccountGroups, serviceAccountUsername } from './tokens/issuer.ts';
import { requireAllowed } from './forbidden.ts';
import type { Attributes, Authorizer } from './types.ts';
import { ANONYMOUS, SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED, type UserInfo } from './user.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/**
 * kube answers a malformed impersonation with responsewriters.InternalError: a plain-text 500,
 * not a Status. The server writes `text` as the body.
 */
export class ImpersonationRequestError extends Error {
  readonly code = 500;
  constructor(readonly text: string) {
    super(text);
  }
}

/** One thing asked to be impersonated (kube builds a v1.ObjectReference for each). */
interface Request {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

function ref(kind: Request['kind'], name: string, more: Partial<Request> = {}): Request {
  return { kind, namespace: '', name, apiVersion: '', fieldPath: '', ...more };
}

/** Go's %v of a v1.ObjectReference: its fields in declaration order, space separated. */
function goObjectReference(r: Request): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

function headerValues(req: IncomingMessage, name: string): string[] {
  // Each header line on its own, as Go's http.Header keeps them (Node's req.headers joins them).
  return (req.headersDistinct[name] ?? []).filter((x) => x !== '');
}

function buildRequests(req: IncomingMessage): Request[] {
  const requests: Request[] = [];
  const user = headerValues(req, USER_HEADER)[0] ?? '';
  if (user) {
    const sa = parseServiceAccountUsername(user);
    requests.push(sa ? ref('ServiceAccount', sa.name, { namespace: sa.namespace }) : ref('User', user));
  }
  const groups = headerValues(req, GROUP_HEADER);
  for (const g of groups) requests.push(ref('Group', g));
  let hasExtra = false;
  for (const header of Object.keys(req.headers)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const value of headerValues(req, header))
      requests.push(ref('UserExtra', value, { apiVersion: `${AUTHENTICATION_GROUP}/v1`, fieldPath: key }));
  }
  const uid = headerValues(req, UID_HEADER)[0] ?? '';
  if (uid) requests.push(ref('UID', uid, { apiVersion: `${AUTHENTICATION_GROUP}/v1` }));
  if ((groups.length > 0 || hasExtra || uid) && !user) {
    const sanitized = `Internal Server Error: ${goQuote(req.url ?? '')}: requested [${requests.map(goObjectReference).join(' ')}] without impersonating a user`;
    throw new ImpersonationRequestError(sanitized.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  }
  return requests;
}

/** Extra keys travel percent-encoded in header names (impersonation.go unescapeExtraKey). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

export function impersonate(req: IncomingMessage, _url: URL, user: UserInfo, authorizer: Authorizer): UserInfo {
  const requests = buildRequests(req);
  if (requests.length === 0) return user;
  const groupsSpecified = headerValues(req, GROUP_HEADER).length > 0;
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const a: Attributes = {
      user,
      verb: 'impersonate',
      resourceRequest: true,
      path: '',
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: r.namespace,
      name: r.name,
    };
    switch (r.kind) {
      case 'ServiceAccount':
        a.resource = 'serviceaccounts';
        username = serviceAccountUsername(r.namespace, r.name);
        // A service account's groups are a fixed mapping: implied unless groups were given.
        if (!groupsSpecified) groups = serviceAccountGroups(r.namespace);
        break;
      case 'User':
        a.resource = 'users';
        username = r.name;
        break;
      case 'Group':
        a.resource = 'groups';
        groups.push(r.name);
        break;
      case 'UserExtra':
        a.apiGroup = AUTHENTICATION_GROUP;
        a.apiVersion = 'v1';
        a.resource = 'userextras';
        a.subresource = r.fieldPath;
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        a.apiGroup = AUTHENTICATION_GROUP;
        a.apiVersion = 'v1';
        a.resource = 'uids';
        uid = r.name;
        break;
    }
    requireAllowed(a, authorizer.authorize(a));
  }
  const implied = username === ANONYMOUS.username ? SYSTEM_UNAUTHENTICATED : SYSTEM_AUTHENTICATED;
  if (!groups.includes(implied)) groups.push(implied);
  return {
    username,
    ...(uid ? { uid } : {}),
    groups,
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
