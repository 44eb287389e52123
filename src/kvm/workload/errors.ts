// Telling "the workload cluster cannot be reached right now" from real errors.
import { NetworkError, RequestTimeoutError, ApiError } from '../../runtime/index.ts';
import { WorkloadCredentialsError } from './credentials.ts';

/** True for errors that mean the workload API is not available (yet): no credentials, no answer, 5xx. */
export function isWorkloadUnavailable(e: unknown): boolean {
  if (e instanceof WorkloadCredentialsError || e instanceof NetworkError || e instanceof RequestTimeoutError)
    return true;
  if (e instanceof ApiError) return e.code >= 500 || e.code === 401 || e.code === 403;
  const code = (e as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN)$/.test(code)
  );
}
