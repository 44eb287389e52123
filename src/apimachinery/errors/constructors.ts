// Constructors of the Status errors kube-apiserver answers, with its message texts
// (k8s.io/apimachinery/pkg/api/errors: NewNotFound, NewConflict, NewInvalid, ...).
import type { StatusCause, StatusDetails } from '../meta/status.ts';
import { StatusError } from './status-error.ts';

/** `group` is "" for the core group; `resource` is the plural name (e.g. "configmaps"). */
export interface ResourceRef {
  group: string;
  resource: string;
}

/** "configmaps" or "deployments.apps", as kube-apiserver qualifies resources in messages. */
export function qualifiedResource(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

export function notFound(ref: ResourceRef, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(ref)} "${name}" not found`, {
    name,
    group: ref.group || undefined,
    kind: ref.resource,
  });
}

export function alreadyExists(ref: ResourceRef, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(ref)} "${name}" already exists`, {
    name,
    group: ref.group || undefined,
    kind: ref.resource,
  });
}

export function conflict(ref: ResourceRef, name: string, why?: string): StatusError {
  const reason = why ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(ref)} "${name}": ${reason}`,
    {
      name,
      group: ref.group || undefined,
      kind: ref.resource,
    },
  );
}

/**
 * 422 with field causes, as errors.NewInvalid: the message names the GroupKind the way Go's
 * GroupKind.String() does (`ConfigMap "x" is invalid: ...`, `Deployment.apps "x" is invalid: ...`).
 */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): StatusError {
  const summary = causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? ''))).join(', ');
  const shown = causes.length > 1 ? `[${summary}]` : summary;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${shown}`, {
    name: name || undefined, // omitempty
    group: group || undefined,
    kind: kind || undefined, // omitempty: errors.NewInvalid(schema.GroupKind{}, ...) names no kind
    causes,
  });
}

export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function forbidden(message: string, details?: StatusDetails): StatusError {
  return new StatusError(403, 'Forbidden', message, details);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function methodNotAllowed(message: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(message: string): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', message);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
}
