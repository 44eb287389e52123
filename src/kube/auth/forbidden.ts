// The 403 kube-apiserver answers when the authorizer says no
// (apiserver/pkg/endpoints/handlers/responsewriters/errors.go).
import { StatusError } from '../../apimachinery/errors/index.ts';
import type { Attributes, Decision } from './types.ts';

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function forbiddenMessage(a: Attributes, reason: string): string {
  const user = escapeHtml(a.user.username);
  let msg: string;
  if (!a.resourceRequest) {
    msg = `forbidden: User "${user}" cannot ${escapeHtml(a.verb)} path "${escapeHtml(a.path)}"`;
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
    const subject = a.name ? `${qualified} "${a.name}"` : qualified;
    const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    msg = `${subject} is forbidden: User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}`;
    msg = escapeHtml(msg);
  }
  return reason ? `${msg}: ${reason}` : msg;
}

export function forbidden(a: Attributes, reason: string): StatusError {
  const details: Record<string, unknown> = { kind: a.resource };
  if (a.name) details.name = a.name;
  if (a.apiGroup) details.group = a.apiGroup;
  return new StatusError(403, 'Forbidden', forbiddenMessage(a, reason), a.resourceRequest ? details : {});
}

/** Throws kube's 403 unless the decision allows. */
export function requireAllowed(a: Attributes, d: Decision): void {
  if (!d.allowed) throw forbidden(a, d.reason);
}
