// The 403 kube-apiserver answers when the authorizer says no
// (apiserver/pkg/endpoints/handlers/responsewriters/errors.go: ForbiddenStatusError and
// RespondWithError; apimachinery/pkg/api/errors/errors.go: NewForbidden).
import { StatusError } from '../../apimachinery/errors/index.ts';
import type { StatusDetails } from '../../apimachinery/meta/index.ts';
import { goQuote } from '../../apimachinery/strings/index.ts';
import type { Attributes, Decision } from './types.ts';

/** Avoids error texts that look like valid HTML; quotes are fine. */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** forbiddenMessage: what the user may not do, without the resource prefix NewForbidden adds. */
function deniedAction(a: Attributes): string {
  const user = goQuote(a.user.username);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${goQuote(a.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} ${scope}`;
}

export function forbiddenMessage(a: Attributes, reason: string): string {
  const cause = reason ? `${sanitize(deniedAction(a))}: ${reason}` : sanitize(deniedAction(a));
  // NewForbidden with the request's GroupResource (empty for non-resource requests) and name.
  const group = a.resourceRequest ? a.apiGroup : '';
  const resource = a.resourceRequest ? a.resource : '';
  if (!group && !resource) return `forbidden: ${cause}`;
  const qualified = group ? `${resource}.${group}` : resource;
  return a.name ? `${qualified} ${goQuote(a.name)} is forbidden: ${cause}` : `${qualified} is forbidden: ${cause}`;
}

/** A 403 of the authorization (or impersonation) filter: sent with RespondWithError's header. */
export class AuthorizationDenied extends StatusError {
  readonly headers: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };
}

/** Headers an error response carries besides Content-Type. */
export function errorHeaders(err: StatusError): Readonly<Record<string, string>> {
  return err instanceof AuthorizationDenied ? err.headers : {};
}

export function forbidden(a: Attributes, reason: string): StatusError {
  const details: StatusDetails = {};
  if (a.name) details.name = a.name;
  if (a.resourceRequest && a.apiGroup) details.group = a.apiGroup;
  if (a.resourceRequest && a.resource) details.kind = a.resource;
  return new AuthorizationDenied(403, 'Forbidden', forbiddenMessage(a, reason), details);
}

/** Throws kube's 403 unless the decision allows. */
export function requireAllowed(a: Attributes, d: Decision): void {
  if (!d.allowed) throw forbidden(a, d.reason);
}
