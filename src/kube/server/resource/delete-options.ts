// DeleteOptions from an optional body and the query (which wins), as kube-apiserver merges them.
import { badRequest } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { DeleteOptions } from '../../registry/store/index.ts';
import { decodeBody, OBJECT_BODY_TYPES, queryInt } from '../request.ts';

const PROPAGATION_POLICIES = ['Background', 'Foreground', 'Orphan'];

export function deleteOptions(raw: Buffer, contentType: string | undefined, query: URLSearchParams): DeleteOptions {
  const body = deleteOptionsBody(raw, contentType);
  const policy = (query.get('propagationPolicy') ?? body.propagationPolicy) as string | undefined;
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    throw badRequest(
      `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const orphanDependents = query.get('orphanDependents') ?? body.orphanDependents;
  const opts: DeleteOptions = { propagationPolicy: policy as DeleteOptions['propagationPolicy'] };
  if (policy === undefined && (orphanDependents === true || orphanDependents === 'true'))
    opts.propagationPolicy = 'Orphan';
  const grace = queryInt(query, 'gracePeriodSeconds') ?? (body.gracePeriodSeconds as number | undefined);
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  if (body.preconditions && typeof body.preconditions === 'object') {
    opts.preconditions = body.preconditions as DeleteOptions['preconditions'];
  }
  return opts;
}

function deleteOptionsBody(raw: Buffer, contentType: string | undefined): JsonObject {
  if (raw.length === 0 || raw.toString('utf8').trim() === '') return {};
  const body = decodeBody(raw, contentType, OBJECT_BODY_TYPES) as JsonObject;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the body of the request was not DeleteOptions');
  return body;
}
