// The Status errors kube-apiserver's patch handler returns (staging/src/k8s.io/apiserver/pkg/
// endpoints/handlers/patch.go). A patch that cannot be applied is reported through
// NewGenericServerResponse(422, ...): a fixed message and empty details, so the wire never says
// what failed. The reason is kept on the error's `cause` for our logs only.
import { StatusError, badRequest } from '../../apimachinery/errors/index.ts';

/** 422 Invalid, as for a failed JSON-patch `test` or an operation on a missing path. */
export function patchNotApplicable(detail: string): StatusError {
  const err = new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  err.cause = new Error(detail);
  return err;
}

/** 400 BadRequest for a body that is not a patch of the declared type, with kube's message. */
export function malformedPatch(message: string): StatusError {
  return badRequest(message);
}

export const MAX_JSON_PATCH_OPERATIONS = 10000;

export function tooManyOperations(count: number): StatusError {
  return new StatusError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`,
  );
}
