// Status errors: the error that is a metav1.Status, its constructors and the reason checks.
export { StatusError, reasonForCode, type StatusReason } from './status-error.ts';
export {
  qualifiedResource,
  notFound,
  alreadyExists,
  conflict,
  invalid,
  badRequest,
  forbidden,
  gone,
  methodNotAllowed,
  unsupportedMediaType,
  internalError,
  type ResourceRef,
} from './constructors.ts';
export {
  isNotFound,
  isConflict,
  isAlreadyExists,
  isInvalid,
  isGone,
  isForbidden,
  isUnauthorized,
  isTooManyRequests,
} from './reasons.ts';
