// The per-request facts a write carries into the store, from the query and the User-Agent.
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { FieldValidation, RequestContext } from '../../registry/context.ts';
import type { UserInfo } from '../../auth/user.ts';

const MAX_FIELD_MANAGER_BYTES = 128;

function fieldManagerFrom(query: URLSearchParams, req: IncomingMessage): string {
  const explicit = query.get('fieldManager');
  if (explicit !== null) return explicit;
  // kube-apiserver falls back to the User-Agent's product name.
  const ua = String(req.headers['user-agent'] ?? 'unknown');
  return ua.split('/')[0] || 'unknown';
}

/** Apply requires an explicit fieldManager, so it gets no User-Agent fallback. */
export function requestContext(
  req: IncomingMessage,
  query: URLSearchParams,
  user: UserInfo,
  forApply: boolean,
): RequestContext {
  const dryRuns = query.getAll('dryRun');
  for (const d of dryRuns)
    if (d !== 'All') throw badRequest(`dryRun: Unsupported value: "${d}": supported values: "All"`);
  const fv = query.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(fv)) {
    throw badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`);
  }
  const fieldManager = forApply ? (query.get('fieldManager') ?? '') : fieldManagerFrom(query, req);
  if (fieldManager.length > MAX_FIELD_MANAGER_BYTES) {
    throw badRequest(`fieldManager: Too long: must have at most ${MAX_FIELD_MANAGER_BYTES} bytes`);
  }
  return {
    user: user.username,
    userInfo: user,
    dryRun: dryRuns.length > 0,
    fieldManager,
    fieldValidation: fv as FieldValidation,
    warnings: [],
  };
}
